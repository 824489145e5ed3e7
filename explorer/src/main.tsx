/**
 * The explorer: a small single-page app over the service's own API, for people who would rather
 * look than use curl. Every view is an address (router.ts); what it knows of the lists it reads
 * from the OpenAPI document (spec.ts).
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, messageOf, session } from './api';
import { Link, Status } from './components';
import { useLocation } from './router';
import { specs, type ResourceSpec } from './spec';
import { Charts } from './views/Charts';
import { Home } from './views/Home';
import { ListView } from './views/ListView';
import { Project } from './views/Project';
import { NewRecord, RecordView } from './views/RecordView';
import { Reports } from './views/Reports';
import './style.css';

function SignIn({ onChange }: { onChange: () => void }) {
  const [open, setOpen] = useState(false);
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  if (session.token()) {
    return (
      <button type="button" class="secondary" onClick={() => (session.signOut(), onChange())}>
        Sign out
      </button>
    );
  }
  async function submit(event: Event) {
    event.preventDefault();
    const key = token.trim();
    // A list every key may read: a bad key is refused (403) even there.
    const answer = await call('/rest/v1/keyword/?limit=1', 'GET', undefined, key);
    if (!answer.ok) return setError(messageOf(answer.body, answer.status));
    session.signIn(key);
    setOpen(false);
    setToken('');
    setError(null);
    onChange();
  }
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Sign in
      </button>
    );
  }
  return (
    <form class="sign-in" onSubmit={submit}>
      <label>
        API token <input type="password" name="token" autoComplete="off" required value={token} onInput={(event) => setToken(event.currentTarget.value)} autoFocus />
      </label>
      <button type="submit">Sign in</button>
      <button type="button" class="secondary" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {error && <p class="error" role="alert">{error}</p>}
    </form>
  );
}

function View({ url, known }: { url: URL; known: Map<string, ResourceSpec> }) {
  const parts = url.pathname.split('/').filter(Boolean);
  if (parts.length === 0) return <Home specs={known} />;
  if (parts[0] !== 'explore') return <NotFound />;
  const [, name, id] = parts;
  if (name === 'reports') return <Reports />;
  if (name === 'charts') return <Charts project={url.searchParams.get('project')} />;
  if (name === 'project' && id) return <Project specs={known} id={id} />;
  const spec = known.get(name ?? '');
  if (!spec) return <NotFound />;
  if (id === 'new') return <NewRecord spec={spec} />;
  if (id) return <RecordView key={`${name}/${id}`} spec={spec} id={id} />;
  return <ListView spec={spec} url={url} />;
}

const NotFound = () => (
  <section>
    <h1 tabIndex={-1}>Not found</h1>
    <p>
      There is nothing here. <Link href="/">Back to the lists</Link>.
    </p>
  </section>
);

function App() {
  const url = useLocation();
  const [known, setKnown] = useState<Map<string, ResourceSpec> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [signedIn, setSignedIn] = useState(session.token() !== null);
  useEffect(() => {
    specs().then(setKnown, (failure: Error) => setError(failure.message));
  }, []);
  // A new view is announced by moving the focus to its heading (a page load starts at the top).
  const first = useRef(true);
  useEffect(() => {
    if (!known) return;
    if (first.current) first.current = false;
    else (document.querySelector('main h1') as HTMLElement | null)?.focus({ preventScroll: true });
  }, [url.pathname, known]);
  const section = url.pathname.split('/')[2] ?? '';
  const current = (name: string) => (section === name ? ('page' as const) : undefined);
  return (
    <>
      <a class="skip" href="#main">Skip to the content</a>
      <header class="top">
        <Link href="/" class="brand">rsr-api</Link>
        <nav aria-label="Main">
          <Link href="/" aria-current={url.pathname === '/' ? 'page' : undefined}>Lists</Link>
          <Link href="/explore/charts/" aria-current={current('charts')}>Charts</Link>
          <Link href="/explore/reports/" aria-current={current('reports')}>Reports</Link>
          <a href="/docs/">API</a>
        </nav>
        <SignIn onChange={() => setSignedIn(session.token() !== null)} />
      </header>
      <main id="main">
        <Status loading={!known && !error} error={error} />
        {/* Signing in or out shows the view again, read with (or without) the token. */}
        {known && <View key={signedIn ? 'signed-in' : 'anonymous'} url={url} known={known} />}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
