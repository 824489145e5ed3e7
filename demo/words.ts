/** Hand-written vocabulary of the demo: the words faker does not know about development projects. */

export const KEYWORDS = [
  'Water', 'Sanitation', 'Hygiene', 'WASH', 'Health', 'Education', 'Agriculture', 'Food security',
  'Nutrition', 'Gender', 'Women’s empowerment', 'Youth', 'Climate change', 'Climate adaptation',
  'Renewable energy', 'Solar energy', 'Biogas', 'Microfinance', 'Livelihoods', 'Value chains', 'Coffee',
  'Cocoa', 'Dairy', 'Horticulture', 'Fisheries', 'Forestry', 'Land rights', 'Governance', 'Human rights',
  'Peacebuilding', 'Humanitarian aid', 'Disaster risk reduction', 'Resilience', 'Migration', 'Refugees',
  'HIV/AIDS', 'Malaria', 'Maternal health', 'Sexual and reproductive health', 'Child protection',
  'Early childhood development', 'Vocational training', 'Entrepreneurship', 'SME development',
  'Private sector', 'Public-private partnership', 'Capacity building', 'Advocacy', 'Research',
  'Innovation', 'ICT4D', 'Mobile data collection', 'Monitoring & evaluation', 'Open data', 'IATI',
  'Transparency', 'Akvo Flow', 'Akvo RSR', 'Urban development', 'Rural development', 'Infrastructure',
  'Irrigation', 'Rainwater harvesting', 'Groundwater', 'Water resource management',
  'Faecal sludge management', 'Menstrual hygiene', 'WASH in Schools', 'Community-led total sanitation',
  'Handwashing', 'Drinking water quality', 'Water kiosks', 'Sustainable Development Goals', 'SDG 2',
  'SDG 5', 'SDG 6', 'SDG 13', 'Inclusive finance', 'Fair trade', 'Certification', 'Sustainable sourcing',
  'Soil fertility', 'Agroforestry', 'Seeds', 'Post-harvest losses', 'Market access', 'Cooperatives',
  'Biodiversity', 'Mangroves', 'Circular economy', 'Waste management', 'Plastic recycling',
  'Clean cooking', 'Energy access', 'Decent work', 'Child labour', 'Social inclusion',
  'Disability inclusion', 'Indigenous peoples', 'Civil society strengthening', 'Mental health',
  'COVID-19', 'Cholera prevention', 'Education in emergencies', 'Digital skills', 'Financial literacy',
  'Savings groups', 'Land tenure', 'Natural resource management', 'Watershed management',
  'Climate-smart agriculture', 'Food systems', 'Aquaculture', 'Livestock', 'Beekeeping', 'Cashew',
  'Shea butter', 'Quinoa', 'Café de especialidad', 'Agua potable', 'Saneamiento', 'Égalité des genres',
  'Sécurité alimentaire', 'Santé communautaire', 'Dutch WASH Alliance', 'Fonds Duurzaam Water',
  'Connect4Change', 'Ñandú Programme',
];

/** Words that acronyms of organisation names skip. */
export const MINOR_WORDS = new Set([
  'of', 'for', 'the', 'and', 'in', 'de', 'del', 'la', 'las', 'los', 'du', 'des', 'le', 'pour', 'et',
  'y', 'en', 'van', 'voor', 'het', '&', '–', '-',
]);

/** Organisation long names by kind; {surname}, {place}, {country}, {crop}, {crop_es}, {company}, {word}. */
export const ORGANISATION_PATTERNS = {
  ngo: [
    '{place} Water Trust', 'Friends of {place}', '{surname} Foundation', 'Community Action for Development {place}',
    '{country} Rural Development Network', 'Women in Development {country}', 'Youth for Change {place}',
    '{place} Farmers Association', 'Hope for {place}', 'Pamoja Community Initiative {place}',
    'Umoja Women Group {place}', '{word} Foundation', 'Stichting {word}', 'Stichting {surname}',
    'Fundación {surname}', 'Fundación {word}', 'Asociación de Productores de {crop_es} de {place}',
    'Red de Mujeres Rurales de {place}', 'Association {surname} pour le Développement',
    'Groupement des Femmes de {place}', 'Union des Coopératives de {place}', 'Eau Vive {country}',
    'Réseau Santé Communautaire {country}', '{word} International', '{word} Alliance {country}',
    'Centre for Sustainable Livelihoods {place}', '{place} Children’s Centre', 'Stichting Vrienden van {place}',
    'Association des Amis de {place}', 'Asociación Civil {word}', '{surname} Family Foundation', 'Fondation {surname}',
  ],
  government: [
    'Ministry of Water and Sanitation, {country}', 'Ministry of Agriculture, {country}',
    'Ministry of Health, {country}', 'Ministry of Education, {country}', '{place} County Government',
    'Municipalidad de {place}', 'Commune de {place}', 'Ministère de l’Eau, {country}',
    'Embassy of the Kingdom of the Netherlands in {country}', '{place} District Council',
    '{place} Water Supply and Sewerage Company', 'Alcaldía de {place}',
  ],
  company: [
    '{company}', '{company}', '{company}', '{surname} Consulting', '{place} Agro Ltd', '{word} Solar',
    '{surname} & Partners', '{place} {crop} Exporters', '{word} Engineering', 'Société {surname} et Fils',
  ],
  academic: [
    'University of {place}', 'Universidad de {place}', 'Université de {place}', '{place} Institute of Technology',
    '{word} Research Institute', 'Institut de Recherche {surname}', '{place} Agricultural Research Centre',
  ],
} as const;

/** Made-up proper words for organisation names ("Waterkracht Foundation", "Stichting Groen Licht"). */
export const NAME_WORDS = [
  'Waterkracht', 'Groen Licht', 'Aqua for All', 'Simavi', 'Ñandú', 'Tumaini', 'Maji Safi', 'Sankofa',
  'Bon Espoir', 'Nueva Esperanza', 'Sol y Tierra', 'Kilimo Bora', 'Akili', 'Baobab', 'Harambee', 'Ubuntu',
  'Mosaïque', 'Terre Verte', 'Agua Viva', 'Lumière', 'Horizon', 'Bridge', 'Seed', 'Compass', 'Meridian',
  'Riverside', 'Sunrise', 'Equator', 'Keystone', 'Greenfield', 'Tamarind', 'Acacia', 'Jacaranda', 'Mango Tree',
  'Lotus', 'Twiga', 'Nyota', 'Pamoja', 'Amani', 'Wasafi', 'Kuza', 'Fortaleza', 'Camino', 'Raíces', 'Semilla',
  'Étoile', 'Sahel Vert', 'Cordaid', 'Woord en Daad', 'Wereldkinderen',
];

/** Groups of the indicator dimensions: a name and its values. */
export const DIMENSIONS: readonly { name: string; values: readonly string[]; sex?: true }[] = [
  // A project splits by sex at most once: the dimensions marked `sex` exclude each other.
  { name: 'Gender', values: ['Female', 'Male'], sex: true },
  { name: 'Sex', values: ['Women', 'Men', 'Other'], sex: true },
  { name: 'Age group', values: ['Under 15', '15–24', '25–49', '50 and over'] },
  { name: 'Location', values: ['Urban', 'Rural', 'Peri-urban'] },
  { name: 'Disability', values: ['With disability', 'Without disability'] },
  { name: 'Beneficiary type', values: ['Farmers', 'Traders', 'Processors', 'Students'] },
  { name: 'School level', values: ['Pre-primary', 'Primary', 'Secondary', 'Tertiary'] },
  { name: 'Género', values: ['Mujeres', 'Hombres'], sex: true },
  { name: 'Sexe', values: ['Femmes', 'Hommes'], sex: true },
  { name: 'Household head', values: ['Female-headed', 'Male-headed', 'Child-headed'] },
  { name: 'Displacement status', values: ['Host community', 'Refugees', 'Internally displaced'] },
  { name: 'Youth', values: ['Youth (15–35)', 'Adults (36+)'] },
  { name: 'Crop', values: ['Maize', 'Beans', 'Cassava', 'Coffee', 'Rice', 'Sorghum'] },
  { name: 'Facility type', values: ['School', 'Health centre', 'Market', 'Household'] },
];

export interface CustomFieldDef {
  name: string;
  type: 'text' | 'boolean' | 'dropdown';
  maxCharacters: number | null;
  helpText: string;
  mandatory: boolean;
  options?: readonly string[];
}

const text = (name: string, helpText = '', maxCharacters: number | null = 600, mandatory = false): CustomFieldDef =>
  ({ name, type: 'text', maxCharacters, helpText, mandatory });
const yesNo = (name: string, helpText = '', mandatory = false): CustomFieldDef =>
  ({ name, type: 'boolean', maxCharacters: 0, helpText, mandatory });
const dropdown = (name: string, options: readonly string[], helpText = ''): CustomFieldDef =>
  ({ name, type: 'dropdown', maxCharacters: null, helpText, mandatory: false, options });

/** The questions organisations add to their project forms. */
export const CUSTOM_FIELDS: readonly CustomFieldDef[] = [
  text('Project rationale', 'Explain the problem the project addresses and why this approach was chosen.', 600, true),
  text('Target group', 'Describe who benefits directly and indirectly.'),
  text('Sustainability plan', 'How will results last after the funding ends?', 600, true),
  text('Exit strategy'),
  text('Gender mainstreaming approach', 'Describe how women and men participate and benefit.'),
  text('Risk mitigation', 'List the main risks and the measures taken.'),
  text('Co-financing details', '', 0),
  text('Contribution to the SDGs', 'Name the Sustainable Development Goals and targets.'),
  text('Innovation', ''),
  text('Lessons learned', 'What would you do differently next time?', 0),
  text('Local partners’ role'),
  text('Environmental impact'),
  text('Budget justification', '', 600, true),
  text('Monitoring approach', 'Describe data collection, frequency and responsibilities.'),
  text('Alignment with national policy'),
  text('Communication plan', '', 0),
  text('Internal project code', 'Code used in the financial system.', 30),
  text('Contact in the field', '', 100),
  text('Observaciones', '', 600),
  text('Remarques du partenaire', '', 600),
  yesNo('Does the project include a gender component?', '', true),
  yesNo('Is a baseline study available?'),
  yesNo('Child safeguarding policy in place?', 'Required for all projects working with minors.', true),
  yesNo('Disability inclusive?'),
  yesNo('Climate adaptation marker'),
  yesNo('Part of the Dutch WASH Alliance?'),
  yesNo('Co-funded by the private sector?'),
  yesNo('Has the project been evaluated externally?'),
  yesNo('Uses Akvo Flow for data collection?'),
  yesNo('Humanitarian project?'),
  dropdown('Project phase', ['Inception', 'Implementation', 'Phase-out', 'Closed']),
  dropdown('Gender marker', ['0 – Not targeted', '1 – Significant', '2 – Principal']),
  dropdown('Funding modality', ['Grant', 'Loan', 'Guarantee', 'In kind'], 'As agreed in the contract.'),
  dropdown('Risk level', ['Low', 'Medium', 'High']),
];

/** Short names of "Other" budget items (other_extra, at most 30 characters). */
export const OTHER_BUDGET_NAMES = [
  'Borehole drilling', 'Seeds and tools', 'Motorbike fuel', 'Vehicle maintenance', 'Audit fees',
  'Bank charges', 'Baseline study', 'Midterm evaluation', 'Radio spots', 'Printing of manuals',
  'Solar panels', 'Water quality testing', 'Community meetings', 'Exchange visits', 'Translation',
  'Office rent', 'Internet and phone', 'Contingency', 'Insurance', 'Construction materials',
  'Hand pumps', 'Latrine slabs', 'Training venue', 'Per diems', 'Consultancy', 'Gastos bancarios',
  'Materiales de construcción', 'Frais de mission', 'Équipement informatique', 'Software licences',
];

/** Comments on results data, as project managers and M&E staff write them. */
export const DATA_COMMENTS = [
  'Please attach the attendance lists for this update.',
  'Value verified against the field reports.',
  'Could you explain the drop compared to the previous period?',
  'Approved, thanks for the detailed narrative.',
  'The disaggregation by gender is missing.',
  'This figure includes the households reached in the extension area.',
  'Numbers double-checked with the district office.',
  'Returned: the value seems to include last year’s beneficiaries.',
  'Photos of the construction work are in the shared folder.',
  'Target was reached earlier than expected.',
  'Data collection was delayed by the rains; final figures follow next month.',
  'Please use the definition from the indicator guidance.',
  'Corrected a typo in the value.',
  'The survey sample was 240 households.',
  'Same value as reported in the annual report.',
  'Merci pour la mise à jour, les chiffres sont cohérents.',
  'Revisado con el equipo de campo, todo correcto.',
  'Can we split this between the two districts?',
  'OK',
  'Looks good to me.',
];

/** Project update titles (at most 80 characters); {place} is filled in. */
export const UPDATE_TITLES = [
  'First water point handed over in {place}', 'Training of trainers completed', 'Baseline survey results',
  'Visit of the steering committee', 'Community meeting in {place}', 'Harvest season update',
  'Midterm review findings', 'New partnership signed', 'Field visit report', 'Lessons from the first year',
  'Celebrating World Water Day in {place}', 'Construction progress', 'Radio show launched',
  'Exchange visit to {place}', 'Results of the end-line survey', 'Entrega de obras en {place}',
  'Visite de terrain à {place}', 'Quarterly update', 'Cooperative elects new board', 'Rains delay activities',
];

export type LinkKind = 'website' | 'document' | 'photos' | 'video' | 'news' | 'dashboard';

/** Captions of external links and what they point to; some links have no caption. */
export const LINK_CAPTIONS: readonly (readonly [caption: string, kind: LinkKind])[] = [
  ['Project website', 'website'], ['Partner website', 'website'], ['', 'website'], ['Baseline report (PDF)', 'document'],
  ['Midterm evaluation', 'document'], ['Project factsheet', 'document'], ['Annual report', 'document'],
  ['Final evaluation report', 'document'], ['Informe final', 'document'], ['Rapport annuel', 'document'], ['', 'document'],
  ['Photo album', 'photos'], ['Video: voices from the field', 'video'], ['News article', 'news'], ['Data dashboard', 'dashboard'],
];

export const AKVOPEDIA_TOPICS = [
  'Rainwater_harvesting', 'Sand_dam', 'Rope_pump', 'Biosand_filter', 'Composting_toilet', 'Drip_irrigation',
  'Solar_water_disinfection', 'Tippy_tap', 'Ecological_sanitation', 'Household_water_treatment',
  'Water_portal', 'Sanitation_portal', 'Spring_protection', 'Handpump',
];

/** Humanitarian scopes: a crisis and the code it is known by (GLIDE number or appeal code). */
export const HUMANITARIAN_SCOPES: readonly { text: string; glide: string; appeal: string }[] = [
  { text: 'Nepal earthquake 2015', glide: 'EQ-2015-000048-NPL', appeal: 'FNPL15' },
  { text: 'Cyclone Idai response, Mozambique', glide: 'TC-2019-000021-MOZ', appeal: 'FMOZ19' },
  { text: 'Horn of Africa drought', glide: 'DR-2011-000029-KEN', appeal: 'HKEN11' },
  { text: 'Haiti earthquake 2010', glide: 'EQ-2010-000009-HTI', appeal: 'FHTI10' },
  { text: 'Ebola outbreak West Africa', glide: 'EP-2014-000041-GIN', appeal: 'HSLE14' },
  { text: 'Yemen humanitarian response plan', glide: 'CE-2015-000048-YEM', appeal: 'HYEM20' },
  { text: 'South Sudan humanitarian response', glide: 'CE-2013-000164-SSD', appeal: 'HSSD21' },
  { text: 'Rohingya refugee crisis, Cox’s Bazar', glide: 'CE-2017-000124-BGD', appeal: 'HBGD18' },
  { text: 'Sahel food crisis', glide: 'DR-2012-000023-NER', appeal: 'HNER12' },
  { text: 'Inondations au Burkina Faso', glide: 'FL-2020-000190-BFA', appeal: 'HBFA20' },
];
