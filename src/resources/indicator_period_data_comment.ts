import { Type } from '@sinclair/typebox';
import { compareText } from '../text/sortkey.ts';
import { EDIT_ROLES, derived, desc, fk, id, one, text, timestamp, type Lookup, type Row, ownedByProject, resource } from './define.ts';

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

/** Each author's organisations of approved employments, by name. */
async function approvedOrganisations(users: Row[], lookup: Lookup): Promise<Map<number, Row[]>> {
  const employments = (await lookup.byColumn('employment', 'user', users.map((user) => user.id)))
    .filter((employment) => employment.is_approved);
  const organisationIds = [...new Set(employments.map((employment) => employment.organisation))];
  const organisations = new Map(
    (await lookup.byColumn('organisation', 'id', organisationIds)).map((organisation) => [organisation.id, organisation]),
  );
  return new Map(users.map((user) => {
    const ids = new Set(employments.filter((employment) => employment.user === user.id).map((employment) => employment.organisation));
    const approved = [...ids]
      .map((organisationId) => organisations.get(organisationId))
      .filter((organisation): organisation is Row => organisation !== undefined)
      .sort((a, b) => compareText(a.name, b.name) || a.id - b.id);
    return [user.id, approved];
  }));
}

function userDetails(user: Row | null, organisations: Row[], signedIn: boolean): unknown {
  if (!user) return null;
  return {
    id: user.id,
    // resources.md: e-mail addresses only for signed-in callers.
    email: signedIn ? user.email : '',
    first_name: user.first_name,
    last_name: user.last_name,
    approved_organisations: organisations.map((organisation) => ({
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
    user_details: derived(USER_DETAILS, (row, { caller }, related) => userDetails(related.user, related.organisations, caller.isAdmin || caller.userId !== null)),
    comment: text({ index: 'search' }),
    created_at: timestamp({ null: true }),
    last_modified_at: timestamp({ null: true }),
  },
  related: { user: one('user', 'user') },
  reads: ['employment', 'organisation'],
  async expand(rows, related, lookup) {
    const users = [...new Map(related.filter((each) => each.user).map((each) => [each.user.id, each.user])).values()];
    const organisations = await approvedOrganisations(users, lookup);
    for (const each of related) each.organisations = each.user ? organisations.get(each.user.id) : [];
  },
});
export default indicatorPeriodDataComment;
