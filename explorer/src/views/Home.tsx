/** The lists the service has, each with its count, and the ways further: charts, reports, the API reference. */
import { useEffect, useState } from 'preact/hooks';
import { call, type Page } from '../api';
import { Failure, fill, Link } from '../components';
import { num, t } from '../i18n';
import type { ResourceSpec } from '../spec';

/** A list's count as its card shows it; `null` while it is read, `failed` when it could not be. */
type Count = { shown: string } | { failed: true } | null;

export function Home({ specs }: { specs: Map<string, ResourceSpec> }) {
  const [counts, setCounts] = useState<Record<string, Count>>({});
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const set = (name: string, count: Count) => setCounts((known) => ({ ...known, [name]: count }));
    for (const name of specs.keys()) {
      if (counts[name] && !('failed' in counts[name])) continue;
      set(name, null);
      call<Page>(`/rest/v1/${name}/?limit=1`).then(
        (answer) => set(name, answer.ok ? { shown: num(answer.body.count) } : answer.status === 403 ? { shown: t('home.signInToCount') } : { failed: true }),
        () => set(name, { failed: true }),
      );
    }
  }, [specs, attempt]);
  const read = Object.values(counts).filter((count) => count !== null);
  const failed = read.some((count) => 'failed' in count);
  return (
    <section aria-labelledby="home-title">
      <h1 id="home-title" tabIndex={-1}>{t('home.title')}</h1>
      <p class="lead">
        {fill(t('home.lead'), {
          charts: <Link href="/explore/charts/">{t('home.charts')}</Link>,
          reports: <Link href="/explore/reports/">{t('home.reports')}</Link>,
          api: <a href="/docs/">{t('home.apiReference')}</a>,
        })}
      </p>
      {failed && <Failure message={t('home.countsFailed')} retry={() => setAttempt((count) => count + 1)} />}
      <ul class="cards" data-complete={read.length === specs.size ? '' : undefined}>
        {[...specs.values()].map((spec) => {
          const count = counts[spec.name];
          return (
            <li>
              <Link href={`/explore/${spec.name}/`} class="card">
                <span class="card-title">{spec.title}</span>
                <span class="card-count" data-count={spec.name}>{!count ? '…' : 'failed' in count ? '—' : count.shown}</span>
              </Link>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
