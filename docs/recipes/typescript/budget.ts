/**
 * Every budget item an API key may see, read page by page through `next`, summed per currency:
 * a client typed by openapi-typescript from the service's own OpenAPI document, calling it
 * through openapi-fetch.
 *
 *   npm install openapi-fetch && npm install --save-dev openapi-typescript typescript tsx
 *   npx openapi-typescript http://localhost:8000/rest/v1/openapi.json --output rsr-api.d.ts
 *   RSR_API_KEY=your-key npx tsx budget.ts http://localhost:8000
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './rsr-api.js';

type BudgetItem = components['schemas']['budget_item'];

const baseUrl = process.argv[2] ?? 'http://localhost:8000';
const key = process.env['RSR_API_KEY'];
if (!key) throw new Error('Set RSR_API_KEY to an API key.');

// JSON answers (the lists also answer in XML and CSV).
const client = createClient<paths, 'application/json'>({ baseUrl, headers: { Authorization: `Token ${key}` } });

const items: BudgetItem[] = [];
let count: number | undefined;
let page = 1;
for (;;) {
  // 1000 records a page, the most a page holds.
  const { data, error, response } = await client.GET('/rest/v1/budget_item/', { params: { query: { limit: 1000, page } } });
  if (!data) throw new Error(`${response.status}: ${JSON.stringify(error)}`);
  items.push(...data.results);
  count = data.count;
  if (data.next === null) break; // the last page
  page = Number(new URL(data.next).searchParams.get('page'));
}

const totals = new Map<string, number>();
for (const item of items) {
  if (item.amount !== null) totals.set(item.currency_label, (totals.get(item.currency_label) ?? 0) + item.amount);
}
console.log(`${items.length} budget items (the API counted ${count})`);
for (const [currency, amount] of [...totals].sort(([a], [b]) => (a < b ? -1 : 1))) console.log(`${currency}: ${amount.toFixed(2)}`);
