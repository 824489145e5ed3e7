/**
 * The seed's field tables (../shared/seed, section 2), typed in by hand as an independent
 * oracle: key order and JSON types each record must have. `?` marks "or null".
 */
export const SEED_FIELDS: Record<string, string> = {
  budget_item: 'id:int project:int label:int? label_label:str other_extra:str? amount:num? type:str type_label:str currency:str currency_label:str status:str status_label:str period_start:date? period_end:date? value_date:date?',
  transaction: 'id:int project:int reference:str description:str transaction_date:date? transaction_type:str transaction_type_label:str value:num? value_date:date? currency:str currency_label:str provider_organisation:int? provider_organisation_show_link:str provider_organisation_activity:str receiver_organisation:int? receiver_organisation_show_link:str receiver_organisation_activity:str aid_type_vocabulary:str aid_type:str aid_type_label:str disbursement_channel:str disbursement_channel_label:str finance_type:str finance_type_label:str flow_type:str flow_type_label:str tied_status:str tied_status_label:str recipient_country:str recipient_country_label:str recipient_region:str recipient_region_label:str recipient_region_vocabulary:str recipient_region_vocabulary_label:str recipient_region_vocabulary_uri:str sectors:array humanitarian:bool?',
  organisation: 'id:int name:str long_name:str language:str organisation_type:str? new_organisation_type:int currency:str iati_org_id:str? iati_prefixes:null url:str facebook:str twitter:str linkedin:str phone:str mobile:str fax:str contact_person:str contact_email:str description:str notes:str logo:str? latitude:str? longitude:str? city:str? created_at:ts? last_modified_at:ts? current_user_permissions:object can_create_projects:bool enforce_program_projects:bool use_project_roles:bool public_iati_file:bool enforce_2fa:bool can_become_reporting:bool primary_location:int? content_owner:null original:null password_policy:null codelist:null internal_org_ids:array total_budgets:array recipient_org_budgets:array region_budgets:array country_budgets:array total_expenditures:array documents:array locations:array',
  indicator_period_data_comment: 'id:int data:int user:int user_details:object comment:str created_at:ts? last_modified_at:ts?',
  recipient_region: 'id:int project:int region:str region_label:str text:str percentage:num? region_vocabulary:str vocabulary_label:str region_vocabulary_uri:str',
  project_custom_field: 'id:int project:int name:str section:int order:int type:str max_characters:int? help_text:str value:str mandatory:bool dropdown_options:any dropdown_selection:any',
  administrative_location: 'id:int location:int location_unicode:str vocabulary:str vocabulary_label:str code:str level:int?',
  link: 'id:int project:int kind:str url:str caption:str',
  disaggregation_target: 'id:int period:int dimension_name:int? dimension_value:int? value:num?',
  keyword: 'id:int label:str logo:str?',
  reports: 'id:int name:str title:str description:str url:str parameters:array formats:array organisations:array',
  humanitarian_scope: 'id:int type_label:str vocabulary_label:str code:str type:str vocabulary:str vocabulary_uri:str text:str project:int',
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?(Z|[+-]\d{2}:\d{2})$/;

function fits(type: string, value: unknown): boolean {
  switch (type) {
    case 'int': return Number.isInteger(value);
    case 'num': return typeof value === 'number';
    case 'str': return typeof value === 'string';
    case 'bool': return typeof value === 'boolean';
    case 'date': return typeof value === 'string' && DATE.test(value);
    case 'ts': return typeof value === 'string' && TIMESTAMP.test(value);
    case 'array': return Array.isArray(value);
    case 'object': return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'null': return value === null;
    case 'any': return true;
  }
  throw new Error(`unknown seed type ${type}`);
}

/** Problems of one record against the seed: wrong key order, a value of the wrong type. */
export function seedProblems(resource: string, record: Record<string, unknown>): string[] {
  const fields = SEED_FIELDS[resource].split(' ').map((item) => item.split(':'));
  const problems: string[] = [];
  const keys = Object.keys(record).join(' ');
  if (keys !== fields.map(([name]) => name).join(' ')) problems.push(`keys ${keys}`);
  for (const [name, type] of fields) {
    const value = record[name];
    const nullable = type.endsWith('?');
    if (!(nullable && value === null) && !fits(type.replace('?', ''), value)) problems.push(`${name}=${JSON.stringify(value)} is not ${type}`);
  }
  return problems;
}
