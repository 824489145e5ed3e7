import { Type } from '@sinclair/typebox';
import { asc, attachOne, decimal, derived, fk, id, Nullable, type Resource } from './define.js';

const disaggregationTarget: Resource = {
  name: 'disaggregation_target',
  table: 'disaggregation_target',
  title: 'Disaggregation Target',
  description: '',
  defaultOrder: [asc('id')],
  visibility: { kind: 'project', path: ['period', 'indicator', 'result', 'project'] },
  fields: {
    id: id(),
    period: fk('indicator_period', { required: true }),
    // The dimension that owns dimension_value (resources.md).
    dimension_name: derived(Nullable(Type.Integer()), (row) => row.$value?.name ?? null),
    dimension_value: fk('indicator_dimension_value', { null: true }),
    value: decimal(20, 2, { null: true }),
  },
  async expand(rows, lookup) {
    await attachOne(rows, lookup, 'dimension_value', 'indicator_dimension_value', '$value');
  },
};
export default disaggregationTarget;
