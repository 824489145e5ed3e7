/** The lists the service has, each with its count, and the ways further: charts, reports, the API reference. */
import { useEffect, useState } from 'preact/hooks';
import { call, type Page } from '../api';
import { Link } from '../components';
import type { ResourceSpec } from '../spec';

export function Home({ specs }: { specs: Map<string, ResourceSpec> }) {
  const [counts, setCounts] = useState<Record<string, string>>({});
  useEffect(() => {
    for (const name of specs.keys()) {
      call<Page>(`/rest/v1/${name}/?limit=1`).then(
        (answer) => setCounts((known) => ({ ...known, [name]: answer.ok ? answer.body.count.toLocaleString('en') : answer.status === 403 ? 'sign in' : '—' })),
        () => setCounts((known) => ({ ...known, [name]: '—' })),
      );
    }
  }, [specs]);
  return (
    <section aria-labelledby="home-title">
      <h1 id="home-title" tabIndex={-1}>Project data</h1>
      <p class="lead">
        Budgets, transactions, organisations, locations, results and more. Open a list to sort, filter and page through it, or look at the{' '}
        <Link href="/explore/charts/">charts</Link> and download <Link href="/explore/reports/">reports</Link>. Developers: the <a href="/docs/">API reference</a>.
      </p>
      <ul class="cards" data-complete={Object.keys(counts).length === specs.size ? '' : undefined}>
        {[...specs.values()].map((spec) => (
          <li>
            <Link href={`/explore/${spec.name}/`} class="card">
              <span class="card-title">{spec.title}</span>
              <span class="card-count" data-count={spec.name}>{counts[spec.name] ?? '…'}</span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
