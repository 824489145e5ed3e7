import { Type } from '@sinclair/typebox';
import { one, decimal, derived, fk, id, Nullable, ownedByProject, resource } from './define.ts';

const disaggregationTarget = resource({
  name: 'disaggregation_target',
  title: 'Disaggregation Target',
  visibility: ownedByProject('period', 'indicator', 'result', 'project'),
  fields: {
    id: id(),
    period: fk('indicator_period', { required: true }),
    // The dimension that owns dimension_value (resources.md).
    dimension_name: derived(Nullable(Type.Integer()), (row, ctx, related) => related.value?.name ?? null),
    dimension_value: fk('indicator_dimension_value', { null: true }),
    value: decimal(20, 2, { null: true }),
  },
  related: { value: one('dimension_value', 'indicator_dimension_value') },
});
export default disaggregationTarget;
