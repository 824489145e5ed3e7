/** Datasets built in code for tests whose point is quantity (paging, ordering) rather than content. */
import type { DatasetSource } from '../../src/store/import.js';

export interface PagingItem {
  id: number;
  project: number;
  type: string;
  amount: number | null;
  other_extra: string | null;
}

const EXTRAS = ['Fuel', 'fuel', 'Éclair', 'eclair', 'apple', null, '', 'Zebra'];

/**
 * 1,050 visible budget items (project 1) plus 50 of a private project (2), ids interleaved, with
 * many ties in `type`, `amount` and `other_extra` so that ordering and paging have work to do.
 */
export function pagingItems(): PagingItem[] {
  const items: PagingItem[] = [];
  for (let id = 1; id <= 1100; id += 1) {
    items.push({
      id,
      project: id % 22 === 0 ? 2 : 1,
      type: ['1', '2', ''][id % 3],
      amount: id % 11 === 0 ? null : (id % 7) * 10 + (id % 2 ? 0.5 : 0),
      other_extra: EXTRAS[id % EXTRAS.length],
    });
  }
  return items;
}

export function pagingDataset(): DatasetSource[] {
  const project = (id: number, isPublic: boolean) => ({ id, title: `Project ${id}`, is_public: isPublic, publishing_status: 'published' });
  return [
    { file: 'project', label: 'project', records: [project(1, true), project(2, false)] },
    { file: 'budget_item', label: 'budget_item', records: pagingItems() },
  ];
}
