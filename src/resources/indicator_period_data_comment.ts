import { Type } from '@sinclair/typebox';
import { sortKey } from '../text/sortkey.ts';
import { EDIT_ROLES, attachOne, derived, desc, fk, id, text, timestamp, type Lookup, type Row, ownedByProject, resource } from './define.ts';

const ORGANISATION = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  long_name: Type.String(),
  logo: Type.Union([Type.String(), Type.Null()]),
});

const USER_DETAILS = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  approved_organisations: Type.Array(ORGANISATION),
});

/** Attaches `$organisations` to each author: organisations of approved employments, by name. */
async function attachApprovedOrganisations(users: Row[], lookup: Lookup): Promise<void> {
  const employments = (await lookup.byColumn('employment', 'user', users.map((user) => user.id)))
    .filter((employment) => employment.is_approved);
  const organisationIds = [...new Set(employments.map((employment) => employment.organisation))];
  const organisations = new Map(
    (await lookup.byColumn('organisation', 'id', organisationIds)).map((organisation) => [organisation.id, organisation]),
  );
  for (const user of users) {
    const ids = new Set(employments.filter((employment) => employment.user === user.id).map((employment) => employment.organisation));
    user.$organisations = [...ids]
      .map((organisationId) => organisations.get(organisationId))
      .filter((organisation): organisation is Row => organisation !== undefined)
      .sort((a, b) => compareByName(a, b));
  }
}

function compareByName(a: Row, b: Row): number {
  const [keyA, keyB] = [sortKey(a.name) ?? '', sortKey(b.name) ?? ''];
  if (keyA !== keyB) return Buffer.compare(Buffer.from(keyA), Buffer.from(keyB));
  return a.id - b.id;
}

function userDetails(user: Row | null, signedIn: boolean): unknown {
  if (!user) return null;
  return {
    id: user.id,
    // resources.md: e-mail addresses only for signed-in callers.
    email: signedIn ? user.email : '',
    first_name: user.first_name,
    last_name: user.last_name,
    approved_organisations: user.$organisations.map((organisation: Row) => ({
      id: organisation.id,
      name: organisation.name,
      long_name: organisation.long_name,
      logo: organisation.logo,
    })),
  };
}

const indicatorPeriodDataComment = resource({
  name: 'indicator_period_data_comment',
  title: 'Indicator Period Data Comment',
  defaultOrder: [desc('id')],
  visibility: ownedByProject('data', 'period', 'indicator', 'result', 'project'),
  // Edit roles may remove anyone's comment, but words stay their author's (issue: comments written by someone else).
  writers: { kind: 'authors', roles: new Set([...EDIT_ROLES, 'Enumerators']), moderators: EDIT_ROLES },
  serviceFields: { created: 'created_at', modified: 'last_modified_at', author: 'user' },
  fields: {
    id: id(),
    data: fk('indicator_period_data', { required: true }),
    user: fk('user', { required: true }),
    user_details: derived(USER_DETAILS, (row, { caller }) => userDetails(row.$user, caller.isAdmin || caller.userId !== null)),
    comment: text(),
    created_at: timestamp({ null: true }),
    last_modified_at: timestamp({ null: true }),
  },
  async expand(rows, lookup) {
    await attachOne(rows, lookup, 'user', 'user', '$user');
    const users = [...new Map(rows.filter((row) => row.$user).map((row) => [row.$user.id, row.$user])).values()];
    await attachApprovedOrganisations(users, lookup);
  },
});
export default indicatorPeriodDataComment;
