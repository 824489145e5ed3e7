/**
 * The read-write API (http.md: Authentication, Roles and visibility, Errors; resources.md):
 * tokens, a create-read-update-delete cycle for every writable resource, validation messages,
 * roles allowed and denied, what signed-in callers see, body formats, and concurrent writes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import organisation from '../src/resources/organisation.ts';
import { indicatorPeriodData } from '../src/resources/support.ts';
import { insertRecord, updateRecord } from '../src/store/columns.ts';
import { changeData } from '../src/store/data-version.ts';
import { fillProjects } from '../src/store/visibility.ts';
import { createToken, createUser } from '../src/store/users.ts';
import { request, startServer, testStores, type Answer, type TestServer } from './support/server.ts';

type Row = { [key: string]: unknown };

for (const store of testStores()) {
  describe(`writes (${store.name})`, () => {
    let server: TestServer;
    /** Keys: admin (Ana), bo (Project Editor at org 4: partner of private project 3 and unpublished 4), eve (Project Editor at org 1: project 1), enum (Enumerator at org 1), pat (User at org 1). */
    const keys: Record<string, string> = {};

    before(async () => {
      server = await startServer(store);
      const { engine } = server;
      keys.admin = await createToken(engine, 'ana@example.org');
      keys.bo = await createToken(engine, 'bo@example.org');
      await createUser(engine, { email: 'eve@example.org', firstName: 'Eve', lastName: 'Editor', organisation: 1, role: 'Project Editors' });
      keys.eve = await createToken(engine, 'eve@example.org');
      await createUser(engine, { email: 'enum@example.org', firstName: 'Enu', lastName: 'Merator', organisation: 1, role: 'Enumerators' });
      keys.enum = await createToken(engine, 'enum@example.org');
      await createUser(engine, { email: 'pat@example.org', firstName: 'Pat', lastName: 'User', organisation: 1, role: 'Users' });
      keys.pat = await createToken(engine, 'pat@example.org');
      const gone = await createUser(engine, { email: 'gone@example.org', firstName: 'Gone', lastName: 'Away' });
      keys.gone = await createToken(engine, 'gone@example.org');
      await engine.db.updateTable('user').set({ is_active: engine.name === 'sqlite' ? 0 : false }).where('id', '=', gone).execute();
    });
    after(() => server.close());

    const call = (who: string | null, method: string, path: string, body?: unknown, type = 'application/json'): Promise<Answer> => {
      const headers: Record<string, string> = {};
      if (who) headers.authorization = `Token ${keys[who]}`;
      if (body !== undefined) headers['content-type'] = type;
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      return request(server.base, path, { method, headers, body: payload });
    };
    const count = async (who: string | null, resource: string) => (await call(who, 'GET', `/rest/v1/${resource}/`)).body.count as number;

    describe('authentication', () => {
      test('a wrong key, a malformed header and an inactive user are refused, even on GET', async () => {
        const cases: [string, string][] = [
          ['Token 0000000000000000000000000000000000000000', 'Invalid token.'],
          ['Token', 'Invalid token header. No credentials provided.'],
          ['Token a b', 'Invalid token header. Token string should not contain spaces.'],
          [`Token ${keys.gone}`, 'User inactive or deleted.'],
        ];
        for (const [header, detail] of cases) {
          const answer = await request(server.base, '/rest/v1/keyword/', { headers: { authorization: header } });
          assert.equal(answer.status, 403, header);
          assert.deepEqual(answer.body, { detail });
        }
      });

      test('other schemes are not ours: the caller stays anonymous', async () => {
        const answer = await request(server.base, '/rest/v1/budget_item/', { headers: { authorization: 'Bearer xyz' } });
        assert.equal(answer.status, 200);
        assert.equal(answer.body.count, 9);
      });
    });

    describe('create, read, update, delete', () => {
      const cases: [string, Row, Row][] = [
        ['budget_item', { project: 1, label: 38, other_extra: 'Boats', amount: '1234.50', currency: 'USD', type: '1' }, { amount: 99 }],
        ['transaction', { project: 1, reference: 'TX-9', transaction_type: '3', value: 10, currency: 'EUR', provider_organisation: 2 }, { description: 'Second tranche' }],
        ['organisation', { name: 'Nuevo', long_name: 'Nuevo Instituto', currency: 'EUR', url: 'https://nuevo.example.org/' }, { phone: '+31 20 123' }],
        ['indicator_period_data_comment', { data: 1, comment: 'Checked.' }, { comment: 'Checked twice.' }],
        ['recipient_region', { project: 1, region: '89', text: 'Europe, regional', percentage: 10 }, { percentage: 12.5 }],
        ['project_custom_field', { project: 1, name: 'Phase', section: 2, order: 3, value: 'One' }, { value: 'Two' }],
        ['administrative_location', { location: 1, vocabulary: 'A4', code: 'KE', level: 2 }, { level: 3 }],
        ['link', { project: 1, url: 'https://example.org/report', caption: 'Report' }, { kind: 'A' }],
        ['disaggregation_target', { period: 1, dimension_value: 1, value: 5 }, { value: 6.25 }],
        ['keyword', { label: 'Health' }, { logo: 'https://example.org/health.png' }],
        ['reports', { name: 'budget-table', title: 'Budget table', url: '/py-reports/project/{project}/budget/?format={format}', formats: ['excel'] }, { description: 'Budgets.' }],
        ['humanitarian_scope', { project: 1, code: 'FL-2024', type: '1', vocabulary: '1-2', text: 'Floods' }, { text: 'Floods, 2024' }],
      ];
      for (const [resource, body, change] of cases) {
        test(`${resource}: 201 with Location, then read, PATCH, PUT, DELETE`, async () => {
          const before = await count('admin', resource);
          const created = await call('admin', 'POST', `/rest/v1/${resource}/`, body);
          assert.equal(created.status, 201, created.text);
          const id = created.body.id as number;
          assert.equal(created.headers.get('location'), `${server.base}/rest/v1/${resource}/${id}/`);
          for (const [name, value] of Object.entries(body)) {
            if (name === 'formats') assert.deepEqual((created.body.formats as Row[]).map((format) => format.name), value);
            else assert.equal(String(created.body[name]), typeof created.body[name] === 'number' ? String(Number(value)) : String(value), name);
          }
          assert.equal(await count('admin', resource), before + 1);
          assert.deepEqual((await call('admin', 'GET', `/rest/v1/${resource}/${id}/`)).body, created.body);

          const patched = await call('admin', 'PATCH', `/rest/v1/${resource}/${id}/`, change);
          assert.equal(patched.status, 200, patched.text);
          assert.deepEqual(patched.body, { ...created.body, ...change, ...timestampsOf(patched.body) });

          const rest = Object.fromEntries(Object.entries(body).filter(([name]) => !(name in change)));
          const replaced = await call('admin', 'PUT', `/rest/v1/${resource}/${id}/`, rest);
          assert.equal(replaced.status, 200, replaced.text);
          assert.deepEqual(replaced.body, { ...patched.body, ...timestampsOf(replaced.body) }, 'PUT keeps the optional fields it leaves out');

          const deleted = await call('admin', 'DELETE', `/rest/v1/${resource}/${id}/`);
          assert.equal(deleted.status, 204);
          assert.equal(deleted.text, '');
          assert.equal((await call('admin', 'GET', `/rest/v1/${resource}/${id}/`)).status, 404);
          assert.equal(await count('admin', resource), before);
        });
      }

      test('my_projects is read-only', async () => {
        assert.equal((await call('admin', 'POST', '/rest/v1/my_projects/', { title: 'x' })).status, 405);
        assert.equal((await call('admin', 'PATCH', '/rest/v1/my_projects/1/', { title: 'x' })).status, 405);
      });
    });

    describe('validation', () => {
      const cases: [string, Row, Row][] = [
        ['budget_item', {}, { project: ['This field is required.'] }],
        ['budget_item', { project: 1, amount: 1.234, currency: 'XXX', type: '7', label: 999, other_extra: 'x'.repeat(31) },
          { label: ['Invalid pk "999" - object does not exist.'], other_extra: ['Ensure this field has no more than 30 characters.'], amount: ['Ensure that there are no more than 2 decimal places.'], type: ['"7" is not a valid choice.'], currency: ['"XXX" is not a valid choice.'] }],
        ['budget_item', { project: 1, amount: 1e13 }, { amount: ['Ensure that there are no more than 12 digits before the decimal point.'] }],
        ['budget_item', { project: 1, amount: 'lots' }, { amount: ['A valid number is required.'] }],
        ['budget_item', { project: 1, period_start: '2024-02-30' }, { period_start: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD, DD-MM-YYYY.'] }],
        ['budget_item', { project: 1, period_start: '2024-02-01', period_end: '2024-01-01' }, { period_end: ['Must not be before period_start.'] }],
        ['budget_item', { project: 99 }, { project: ['Invalid pk "99" - object does not exist.'] }],
        ['budget_item', { project: 3 }, { project: ['Invalid pk "3" - object does not exist.'] }],
        ['budget_item', { project: 'one' }, { project: ['Incorrect type. Expected pk value, received str.'] }],
        ['transaction', { project: 1, humanitarian: 'perhaps', reference: null }, { reference: ['This field may not be null.'], humanitarian: ['Must be a valid boolean.'] }],
        ['recipient_region', { project: 1, percentage: 100.5 }, { percentage: ['Ensure this value is less than or equal to 100.'] }],
        ['project_custom_field', { project: 1, name: '', section: 11, order: -1, max_characters: 3, value: 'four' },
          { name: ['This field may not be blank.'], section: ['"11" is not a valid choice.'], order: ['Ensure this value is greater than or equal to 0.'] }],
        ['project_custom_field', { project: 1, name: 'Short', section: 1, order: 0, max_characters: 3, value: 'four' }, { value: ['Has more than max_characters (3) characters.'] }],
        ['link', { project: 1, url: 'not a url' }, { url: ['Enter a valid URL.'] }],
        // contact_email is a plain CharField on RSR: 'nobody' is no problem.
        ['organisation', { name: 'akvo', long_name: 'Another', contact_email: 'nobody' }, { name: ['organisation with this name already exists.'] }],
        ['keyword', { label: 'WATER' }, { label: ['keyword with this label already exists.'] }],
        // Case folds beyond ASCII on both stores (SQLite's own lower() would let it through).
        ['keyword', { label: 'énergie' }, { label: ['keyword with this label already exists.'] }],
        ['administrative_location', { location: 3 }, { location: ['Invalid pk "3" - object does not exist.'] }],
      ];
      test('a change checks the values it gives, not those it leaves as they are (as DRF validates the fields given)', async () => {
        const created = await call('admin', 'POST', '/rest/v1/organisation/', { name: 'Clash', long_name: 'Clash Ltd' });
        assert.equal(created.status, 201, created.text);
        // Names differing in case only, as data loaded from elsewhere may hold them.
        await changeData(server.engine, ['organisation'], (trx) => updateRecord(server.engine, trx, organisation, created.body.id as number, { name: 'AKVO' }));
        const path = `/rest/v1/organisation/${created.body.id}/`;
        const phone = await call('admin', 'PATCH', path, { phone: '020 555' });
        assert.deepEqual([phone.status, phone.body.name, phone.body.phone], [200, 'AKVO', '020 555'], phone.text);
        const renamed = await call('admin', 'PATCH', path, { name: 'Akvo' });
        assert.deepEqual([renamed.status, renamed.body], [400, { name: ['organisation with this name already exists.'] }]);
        // A reference left as it is is not looked up either; one given is.
        const budget = await call('eve', 'PATCH', '/rest/v1/budget_item/1/', { amount: 7 });
        assert.deepEqual([budget.status, budget.body.project, budget.body.amount], [200, 1, 7], budget.text);
        const moved = await call('eve', 'PATCH', '/rest/v1/budget_item/1/', { project: 3 });
        assert.deepEqual([moved.status, moved.body], [400, { project: ['Invalid pk "3" - object does not exist.'] }]);
      });
      for (const [resource, body, errors] of cases) {
        test(`${resource} ${JSON.stringify(body).slice(0, 60)}: 400 with every problem, nothing written`, async () => {
          const before = await count('admin', resource);
          const answer = await call(resource === 'administrative_location' || resource === 'budget_item' && body.project === 3 ? 'eve' : 'admin', 'POST', `/rest/v1/${resource}/`, body);
          assert.equal(answer.status, 400, answer.text);
          assert.deepEqual(answer.body, errors);
          assert.equal(await count('admin', resource), before);
        });
      }
    });

    describe('roles', () => {
      const cases: [string, string, string, Row, number][] = [
        ['a project editor of a partner', 'eve', 'budget_item', { project: 1, amount: 5 }, 201],
        ['a plain user of a partner', 'pat', 'budget_item', { project: 1, amount: 5 }, 403],
        ['an enumerator, for budgets', 'enum', 'budget_item', { project: 1, amount: 5 }, 403],
        ['an enumerator, for comments', 'enum', 'indicator_period_data_comment', { data: 1, comment: 'Counted.' }, 201],
        ['a project editor of another project', 'eve', 'budget_item', { project: 2, amount: 5 }, 403],
        ['a project editor of a private partner project', 'bo', 'budget_item', { project: 3, amount: 5 }, 201],
        ['a project editor, for keywords', 'eve', 'keyword', { label: 'Roads' }, 403],
        ['a project editor, for humanitarian scopes', 'eve', 'humanitarian_scope', { project: 1, text: 'x' }, 403],
        ['a project editor, for a new organisation', 'eve', 'organisation', { name: 'Mine', long_name: 'Mine Ltd' }, 403],
      ];
      for (const [who, key, resource, body, status] of cases) {
        test(`${who}: POST ${resource} is ${status}`, async () => {
          const answer = await call(key, 'POST', `/rest/v1/${resource}/`, body);
          assert.equal(answer.status, status, answer.text);
          if (status === 403) assert.deepEqual(answer.body, { detail: 'You do not have permission to perform this action.' });
        });
      }

      test('writes without credentials are refused before the body is read', async () => {
        const answer = await call(null, 'POST', '/rest/v1/keyword/', '{not json');
        assert.equal(answer.status, 403);
        assert.deepEqual(answer.body, { detail: 'Authentication credentials were not provided.' });
      });

      test('an editor may change their own organisation, not another; the author of a comment is the caller', async () => {
        assert.equal((await call('eve', 'PATCH', '/rest/v1/organisation/1/', { phone: '020 555' })).status, 200);
        assert.equal((await call('eve', 'PATCH', '/rest/v1/organisation/2/', { phone: '020 555' })).status, 403);
        assert.equal((await call('eve', 'DELETE', '/rest/v1/organisation/1/')).status, 403);
        const comment = await call('enum', 'POST', '/rest/v1/indicator_period_data_comment/', { data: 1, comment: 'Mine', user: 1 });
        assert.equal(comment.body.user_details.email, 'enum@example.org');
        assert.equal(comment.body.user_details.first_name, 'Enu');
      });

      test('a record of a project the caller cannot see is 404 to write, 403 when seen but not editable', async () => {
        assert.equal((await call('eve', 'PATCH', '/rest/v1/budget_item/5/', { amount: 1 })).status, 404);
        assert.equal((await call('eve', 'PATCH', '/rest/v1/budget_item/3/', { amount: 1 })).status, 403);
        assert.equal((await call('bo', 'PATCH', '/rest/v1/budget_item/5/', { amount: 11 })).status, 200);
        assert.equal((await call('eve', 'PATCH', '/rest/v1/budget_item/1/', { project: 2 })).status, 403, 'may not move a record to a project it cannot edit');
      });

      test("a comment's author moves it within its project; no one else may change it, and an update they cannot see is no place for it", async () => {
        // A second update of project 1 (its path's first step differs, its project does not).
        const second = await changeData(server.engine, ['indicator_period_data'], async (trx) => {
          const id = await insertRecord(server.engine, trx, indicatorPeriodData, { period: 1, user: 1, value: 3, text: 'Second', status: 'A', created_at: '2023-08-01T12:00:00+02:00' });
          await fillProjects(trx, indicatorPeriodData, [id]);
          return id;
        });
        const comment = await call('enum', 'POST', '/rest/v1/indicator_period_data_comment/', { data: 1, comment: 'Moving' });
        const path = `/rest/v1/indicator_period_data_comment/${comment.body.id}/`;
        const within = await call('enum', 'PATCH', path, { data: second });
        assert.deepEqual([within.status, within.body.data], [200, second], within.text);
        // bo sees the public project 1 but neither wrote the comment nor edits the project.
        assert.equal((await call('bo', 'PATCH', path, { comment: 'Not mine' })).status, 403);
        // Project 3's update is seen by bo's organisation only.
        assert.deepEqual((await call('enum', 'PATCH', path, { data: 2 })).body, { data: ['Invalid pk "2" - object does not exist.'] });
      });
    });

    describe('what signed-in callers see', () => {
      test("records of a partner's private and unpublished projects, in lists, counts and URLs", async () => {
        const bo = await call('bo', 'GET', '/rest/v1/budget_item/?limit=100');
        assert.ok(bo.body.results.some((item: Row) => item.project === 3) && bo.body.results.some((item: Row) => item.project === 4));
        assert.equal((await call('bo', 'GET', '/rest/v1/budget_item/6/')).status, 200);
        assert.equal((await call('eve', 'GET', '/rest/v1/budget_item/6/')).status, 404);
        assert.equal((await call(null, 'GET', '/rest/v1/budget_item/6/')).status, 404);
        assert.ok(bo.body.count > (await count('eve', 'budget_item')));
        const comments = (await call('bo', 'GET', '/rest/v1/indicator_period_data_comment/?limit=100')).body.results.map((comment: Row) => comment.id);
        assert.ok(comments.includes(2) && comments.includes(3));
      });

      test('my_projects: the partner projects, editable, with their organisation', async () => {
        assert.equal((await call(null, 'GET', '/rest/v1/my_projects/')).body.count, 0);
        const bo = await call('bo', 'GET', '/rest/v1/my_projects/');
        assert.deepEqual(bo.body.results.map((project: Row) => [project.id, project.status, project.editable]), [[4, 'unpublished', true], [3, 'published', true]]);
        const zeta = { id: 4, name: 'Zeta', long_name: 'Zeta Consultants', logo: null };
        assert.deepEqual(bo.body.results[1].primary_organisation, zeta);
        const eve = await call('eve', 'GET', '/rest/v1/my_projects/');
        assert.deepEqual(eve.body.results[0], {
          id: 1, title: 'Water for Kisumu', subtitle: 'Boreholes and kiosks', date_end_actual: null, date_end_planned: '2025-12-31',
          date_start_actual: '2023-02-01', date_start_planned: '2023-01-01',
          locations: [{ country: 'Kenya', iso_code: 'ke' }, { country: 'Kenya', iso_code: 'ke' }], status: 'published', is_public: true,
          sectors: [], parent: { id: 5, title: 'Clean Water Program', is_lead: true }, editable: true, recipient_countries: [],
          restricted: false, roles: [], use_project_roles: false, is_program: false,
          primary_organisation: { id: 1, name: 'Akvo', long_name: 'Akvo Foundation', logo: 'https://rsr.example.org/media/akvo.png' }, children_count: 0,
        });
        assert.equal((await call('pat', 'GET', '/rest/v1/my_projects/')).body.results[0].editable, false);
        assert.equal((await call('admin', 'GET', '/rest/v1/my_projects/')).body.count, 5);
      });

      test('organisation permissions and e-mail addresses follow the caller', async () => {
        const permissions = async (who: string | null) => (await call(who, 'GET', '/rest/v1/organisation/1/')).body.current_user_permissions;
        assert.deepEqual(await permissions(null), { can_create_iati_export: false, can_edit_iati_export: false });
        assert.deepEqual(await permissions('eve'), { can_create_iati_export: true, can_edit_iati_export: false });
        assert.deepEqual(await permissions('admin'), { can_create_iati_export: true, can_edit_iati_export: true });
        assert.equal((await call('pat', 'GET', '/rest/v1/indicator_period_data_comment/1/')).body.user_details.email, 'ana@example.org');
      });

      test('OPTIONS describes POST to callers who may create', async () => {
        const admin = await call('admin', 'OPTIONS', '/rest/v1/link/');
        assert.deepEqual(admin.body.actions.POST.url, { type: 'url', required: true, read_only: false, label: 'Url', max_length: 200 });
        assert.deepEqual(admin.body.actions.POST.id, { type: 'integer', required: false, read_only: true, label: 'Id' });
        assert.deepEqual(admin.body.actions.POST.kind.choices, [{ value: 'A', display_name: 'A' }, { value: 'E', display_name: 'E' }]);
        assert.ok((await call('eve', 'OPTIONS', '/rest/v1/link/')).body.actions);
        assert.equal((await call('pat', 'OPTIONS', '/rest/v1/link/')).body.actions, undefined);
        assert.equal((await call(null, 'OPTIONS', '/rest/v1/link/')).body.actions, undefined);
      });
    });

    describe('bodies', () => {
      test('form-encoded bodies are accepted', async () => {
        const answer = await call('eve', 'POST', '/rest/v1/link/', 'project=1&url=https%3A%2F%2Fexample.org%2Fform&caption=From+a+form', 'application/x-www-form-urlencoded');
        assert.equal(answer.status, 201, answer.text);
        assert.equal(answer.body.caption, 'From a form');
      });

      test('malformed JSON, other media types, non-dictionaries and oversized bodies', async () => {
        const malformed = await call('eve', 'POST', '/rest/v1/link/', '{"project": 1,');
        assert.equal(malformed.status, 400);
        assert.match(malformed.body.detail, /^JSON parse error - /);
        assert.deepEqual((await call('eve', 'POST', '/rest/v1/link/', '<link/>', 'application/xml')).body, { detail: 'Unsupported media type "application/xml" in request.' });
        assert.equal((await call('eve', 'POST', '/rest/v1/link/', '<link/>', 'application/xml')).status, 415);
        assert.deepEqual((await call('eve', 'POST', '/rest/v1/link/', '"text"')).body, { non_field_errors: ['Invalid data. Expected a dictionary, but got str.'] });
        const large = await call('eve', 'POST', '/rest/v1/link/', JSON.stringify({ project: 1, caption: 'x'.repeat(1024 * 1024) }));
        assert.equal(large.status, 413);
        assert.equal(large.headers.get('content-type'), 'application/json');
      });
    });

    test('200 concurrent creates and updates: nothing lost, every count and value exact', async () => {
      const before = await count('eve', 'link');
      const seeded: number[] = [];
      for (let index = 0; index < 50; index += 1) seeded.push((await call('eve', 'POST', '/rest/v1/link/', { project: 1, url: `https://example.org/seed/${index}`, caption: 'seed' })).body.id);
      const creates = Array.from({ length: 150 }, (_, index) => call('eve', 'POST', '/rest/v1/link/', { project: 1, url: `https://example.org/new/${index}`, caption: `new ${index}` }));
      const updates = seeded.map((id, index) => call('eve', 'PATCH', `/rest/v1/link/${id}/`, { caption: `updated ${index}` }));
      const answers = await Promise.all([...creates, ...updates]);
      assert.deepEqual([...new Set(answers.map((answer) => answer.status))].sort(), [200, 201]);
      const all = (await call('eve', 'GET', '/rest/v1/link/?limit=1000')).body;
      assert.equal(all.count, before + 200);
      const captions = new Map((all.results as Row[]).map((link) => [link.id, link.caption]));
      seeded.forEach((id, index) => assert.equal(captions.get(id), `updated ${index}`));
      const created = (all.results as Row[]).filter((link) => String(link.caption).startsWith('new ')).map((link) => link.caption).sort();
      assert.deepEqual(created, Array.from({ length: 150 }, (_, index) => `new ${index}`).sort());
    });
  });
}

/** A PATCH moves last_modified_at (organisations, comments): compare everything else. */
function timestampsOf(record: Row): Row {
  return Object.fromEntries(Object.entries(record).filter(([name]) => name === 'last_modified_at'));
}
