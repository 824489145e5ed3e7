/**
 * The explorer: a small single-page app over the service's own API, for people who would rather
 * look than use curl. Every view is an address (router.ts); what it knows of the lists it reads
 * from the OpenAPI document (spec.ts). It speaks English, Spanish and French (i18n/).
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, messageOf, session } from './api';
import { fill, Link, messageOfFailure, Status, useRead } from './components';
import { LANGUAGE_NAMES, LOCALES, locale, preferred, setLocale, t, type Locale } from './i18n';
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
        {t('signIn.out')}
      </button>
    );
  }
  async function submit(event: Event) {
    event.preventDefault();
    const key = token.trim();
    try {
      // A list every key may read: a bad key is refused (403) even there.
      const answer = await call('/rest/v1/keyword/?limit=1', 'GET', undefined, key);
      if (!answer.ok) return setError(messageOf(answer.body, answer.status));
    } catch (failure) {
      return setError(messageOfFailure(failure));
    }
    session.signIn(key);
    setOpen(false);
    setToken('');
    setError(null);
    onChange();
  }
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        {t('signIn.open')}
      </button>
    );
  }
  return (
    <form class="sign-in" onSubmit={submit}>
      <label>
        {t('signIn.token')} <input type="password" name="token" autoComplete="off" required value={token} onInput={(event) => setToken(event.currentTarget.value)} autoFocus />
      </label>
      <button type="submit">{t('signIn.submit')}</button>
      <button type="button" class="secondary" onClick={() => setOpen(false)}>
        {t('common.cancel')}
      </button>
      {error && <p class="error" role="alert">{error}</p>}
    </form>
  );
}

/** The language switch: each language named in itself (and marked as such for screen readers). */
function LanguageSwitch({ onChange }: { onChange: (next: Locale) => void }) {
  return (
    <label class="language">
      <span class="visually-hidden">{t('app.language')}</span>
      <select name="language" value={locale()} onChange={(event) => onChange(event.currentTarget.value as Locale)}>
        {LOCALES.map((code) => (
          <option value={code} lang={code}>
            {LANGUAGE_NAMES[code]}
          </option>
        ))}
      </select>
    </label>
  );
}

function View({ url, known }: { url: URL; known: Map<string, ResourceSpec> }) {
  const parts = url.pathname.split('/').filter(Boolean);
  if (parts.length === 0) return <Home specs={known} />;
  if (parts[0] !== 'explore') return <NotFound />;
  const [, name, id] = parts;
  if (name === 'reports') return <Reports />;
  if (name === 'charts') return <Charts project={url.searchParams.get('project')} />;
  if (name === 'project' && id) return <Project key={id} specs={known} id={id} />;
  const spec = known.get(name ?? '');
  if (!spec) return <NotFound />;
  if (id === 'new') return <NewRecord spec={spec} />;
  if (id) return <RecordView key={`${name}/${id}`} spec={spec} id={id} />;
  return <ListView spec={spec} url={url} />;
}

const NotFound = () => (
  <section aria-labelledby="not-found-title">
    <h1 id="not-found-title" tabIndex={-1}>{t('app.notFound')}</h1>
    <p>{fill(t('app.nothingHere'), { link: <Link href="/">{t('app.backToLists')}</Link> })}</p>
  </section>
);

function speak(next: Locale, remember: boolean) {
  setLocale(next, remember);
  document.title = t('app.title');
}

function App() {
  const url = useLocation();
  const [language, setLanguage] = useState<Locale>(locale);
  const known = useRead(specs, []);
  const [signedIn, setSignedIn] = useState(session.token() !== null);
  // A new view is announced by moving the focus to its heading (a page load starts at the top).
  const first = useRef(true);
  useEffect(() => {
    if (!known.data) return;
    if (first.current) first.current = false;
    else (document.querySelector('main h1') as HTMLElement | null)?.focus({ preventScroll: true });
  }, [url.pathname, known.data]);
  const section = url.pathname.split('/')[2] ?? '';
  const current = (name: string) => (section === name ? ('page' as const) : undefined);
  const choose = (next: Locale) => {
    speak(next, true);
    setLanguage(next);
  };
  return (
    <>
      <a class="skip" href="#main">{t('app.skip')}</a>
      <header class="top">
        <Link href="/" class="brand">rsr-api</Link>
        <nav aria-label={t('app.mainNavigation')}>
          <Link href="/" aria-current={url.pathname === '/' ? 'page' : undefined}>{t('app.lists')}</Link>
          <Link href="/explore/charts/" aria-current={current('charts')}>{t('app.charts')}</Link>
          <Link href="/explore/reports/" aria-current={current('reports')}>{t('app.reports')}</Link>
          <a href="/docs/">{t('app.api')}</a>
        </nav>
        <LanguageSwitch onChange={choose} />
        <SignIn onChange={() => setSignedIn(session.token() !== null)} />
      </header>
      <main id="main">
        <Status loading={!known.data && !known.error} error={known.error} retry={known.retry} />
        {/* Signing in or out, or another language, shows the view again: read with (or without) the token, in its words. */}
        {known.data && <View key={`${signedIn ? 'signed-in' : 'anonymous'} ${language}`} url={url} known={known.data} />}
      </main>
    </>
  );
}

speak(preferred(), false);
render(<App />, document.getElementById('app')!);
