/** Users and their employments at organisations. */
import { stream, type DemoContext } from './context.ts';
import { asciiSlug } from './lexicon.ts';
import { reportingOrganisations } from './plan.ts';
import { Weighted } from './random.ts';

type Row = Record<string, unknown>;

const MAIL_DOMAINS = ['example.org', 'example.com', 'example.net'];

export function* users(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'user');
  const emails = new Set<string>();
  for (let id = 1; id <= ctx.sizes.user; id++) {
    const person = rng.pick(ctx.lexicon.people);
    const local = asciiSlug(`${person.first.split(' ')[0]} ${person.last}`, '.') || `user${id}`;
    const domain = rng.pick(MAIL_DOMAINS);
    let email = `${local}@${domain}`;
    for (let n = 2; emails.has(email); n++) email = `${local}${n}@${domain}`;
    emails.add(email);
    yield {
      id,
      email,
      first_name: person.first,
      last_name: person.last,
      is_active: id === 1 || rng.chance(0.95),
      // User 1 administers the demo; a few other staff members are administrators too.
      is_admin: id === 1 || rng.chance(0.01),
      is_superuser: id === 1,
    };
  }
}

const GROUPS_OF_EMPLOYMENT = new Weighted<string>([
  ['Users', 30], ['Project Editors', 25], ['M&E Managers', 15], ['Enumerators', 15], ['Admins', 10], ['User Managers', 5],
]);

export function* employments(ctx: DemoContext): Generator<Row> {
  const rng = stream(ctx, 'employment');
  const { organisations: count } = ctx.plan;
  const reporting = reportingOrganisations(count);
  let id = 0;
  yield { id: ++id, user: 1, organisation: 1, group: 'Admins', is_approved: true };
  for (let user = 2; user <= ctx.sizes.user; user++) {
    const jobs = rng.chance(0.65) ? 1 : rng.chance(0.8) ? 2 : 3;
    const taken: number[] = [];
    for (let k = 0; k < jobs; k++) {
      // Staff of the reporting organisations do most of the reporting.
      const organisation = 1 + (rng.chance(0.5) ? rng.int(reporting) : rng.int(count));
      if (taken.includes(organisation)) continue;
      taken.push(organisation);
      yield { id: ++id, user, organisation, group: GROUPS_OF_EMPLOYMENT.pick(rng), is_approved: rng.chance(0.92) };
    }
  }
}
