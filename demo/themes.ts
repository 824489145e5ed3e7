/**
 * What projects are about. A project has one theme, and its title, results, indicators and texts
 * come from that theme's phrases, so a record reads like it belongs with its neighbours.
 * Placeholders: {place}, {country}, {group}, {n}, {year}, {crop}; {crop_local} in Spanish and French.
 */

export interface Theme {
  /** Names of programs of this theme (a program's title adds its country). */
  programs: readonly string[];
  /** Emergency work: its projects may have humanitarian scopes. */
  humanitarian?: true;
  titles: readonly string[];
  /** Titles in Spanish and French, for projects run by Latin American and West African partners. */
  titlesEs: readonly string[];
  titlesFr: readonly string[];
  results: readonly string[];
  /** Indicators starting with "Percentage" or "%" are measured in percent. */
  indicators: readonly string[];
  sentences: readonly string[];
}

export const THEMES: readonly Theme[] = [
  {
    programs: ['WASH Alliance', 'Sustainable Water Fund', 'Programa de Agua y Saneamiento', 'Programme Eau et Assainissement'],
    titles: [
      'Safe drinking water for rural communities in {place}',
      'WASH in Schools – {place}',
      'Sustainable sanitation services in {place}',
      'Rainwater harvesting for {group} in {country}',
      'Community-led total sanitation, {place} district',
      'Water kiosks and borehole rehabilitation in {place}',
      'Hygiene promotion and handwashing in {country}',
    ],
    titlesEs: ['Agua potable para comunidades rurales de {place}', 'Saneamiento básico en escuelas de {place}'],
    titlesFr: ['Accès à l’eau potable à {place}', 'Assainissement et hygiène dans les écoles de {place}'],
    results: [
      'Increased access to safe drinking water',
      'Improved sanitation facilities in schools and health centres',
      'Improved hygiene behaviour among {group}',
      'Water committees manage services sustainably',
      'Local government budgets for WASH increased',
    ],
    indicators: [
      'Number of people with access to safe drinking water',
      'Number of latrines constructed',
      'Number of schools with separate toilets for girls',
      'Percentage of households practising handwashing with soap',
      'Percentage of water points functional one year after construction',
      'Number of water committees trained',
      'Number of boreholes rehabilitated',
    ],
    sentences: [
      'The project constructs {n} water points and trains water committees in {place}.',
      'In {year} the water committees of {place} started collecting user fees to pay for repairs.',
      'Handwashing stations were installed in {n} schools, together with separate toilets for girls.',
      'Open defecation remains common in the villages around {place}, especially in the dry season.',
      'The district water office co-finances the maintenance of the boreholes.',
    ],
  },
  {
    programs: ['Girls’ Education Programme', 'Education for All'],
    titles: [
      'Quality primary education in {place}',
      'Girls’ education and retention in {country}',
      'Teacher training for inclusive classrooms in {place}',
      'Early childhood development centres in {place}',
      'Vocational training for {group} in {country}',
      'Digital skills for young people in {place}',
    ],
    titlesEs: ['Educación de calidad para niñas y niños de {place}', 'Formación técnica para jóvenes en {country}'],
    titlesFr: ['Éducation de base de qualité à {place}', 'Formation professionnelle des jeunes – {country}'],
    results: [
      'Improved learning outcomes in primary schools',
      'More girls complete secondary education',
      'Teachers apply child-centred teaching methods',
      'Young people find decent work after training',
      'Parents are involved in school management',
    ],
    indicators: [
      'Number of teachers trained',
      'Number of children enrolled in supported schools',
      'Percentage of pupils reaching minimum reading proficiency',
      'Number of classrooms built or rehabilitated',
      'Percentage of trained youth employed six months after graduation',
      'Number of school management committees functioning',
    ],
    sentences: [
      '{n} teachers followed a two-week course on child-centred teaching methods.',
      'Enrolment of girls in the supported schools of {place} rose steadily since {year}.',
      'Parents contribute labour and materials to the construction of classrooms.',
      'The vocational centre in {place} offers courses in tailoring, welding and solar installation.',
      'Dropout rates are highest in the months before the harvest.',
    ],
  },
  {
    programs: ['Health Systems Strengthening', 'Healthy Mothers Programme'],
    titles: [
      'Maternal and newborn health in {place}',
      'Community health workers for {country}',
      'Malaria prevention in {place} district',
      'Sexual and reproductive health rights for {group}',
      'Strengthening primary health care in {place}',
    ],
    titlesEs: ['Salud materna e infantil en {place}', 'Promotores comunitarios de salud en {country}'],
    titlesFr: ['Santé maternelle et infantile à {place}', 'Renforcement des centres de santé communautaire – {country}'],
    results: [
      'Improved access to maternal health services',
      'Reduced incidence of malaria among children under five',
      'Community health workers deliver basic care',
      'Young people make informed choices about their sexual health',
      'Health centres have essential medicines in stock',
    ],
    indicators: [
      'Number of community health workers trained',
      'Number of births attended by skilled personnel',
      'Percentage of children under five sleeping under a bed net',
      'Number of health centres supported',
      'Percentage of pregnant women attending four antenatal visits',
      'Number of young people reached with SRHR information',
    ],
    sentences: [
      'The project trains {n} community health workers who visit households every month.',
      'Stock-outs of essential medicines in {place} were reduced by a new ordering system.',
      'Mobile clinics reach remote villages that are more than 10 km from a health centre.',
      'Radio programmes in local languages discuss family planning and safe motherhood.',
      'Malaria cases peak during the rainy season, from June to September.',
    ],
  },
  {
    programs: ['Food Security Programme', 'Green Livelihoods Alliance'],
    titles: [
      'Climate-smart agriculture for {group} in {place}',
      'Improving {crop} value chains in {country}',
      'Food security and nutrition in {place}',
      'Smallholder {crop} farmers access to markets in {place}',
      'Irrigation and horticulture for {group}, {country}',
      'Dairy development in {place}',
    ],
    titlesEs: ['Cadena de valor del {crop_local} en {place}', 'Seguridad alimentaria para familias campesinas de {place}'],
    titlesFr: ['Sécurité alimentaire et nutrition à {place}', 'Filière {crop_local} durable, {country}'],
    results: [
      'Increased yields of {crop} among participating farmers',
      'Farmers’ cooperatives sell collectively to buyers',
      'Improved household dietary diversity',
      'Reduced post-harvest losses',
      'Farmers adopt climate-smart practices',
    ],
    indicators: [
      'Number of farmers trained in good agricultural practices',
      'Average yield of {crop} per hectare (kg)',
      'Number of hectares under improved irrigation',
      'Percentage of households with acceptable food consumption score',
      'Volume of {crop} sold through cooperatives (tonnes)',
      'Number of demonstration plots established',
      'Percentage of farmers applying compost or mulching',
    ],
    sentences: [
      '{n} smallholder farmers were trained in composting, mulching and crop rotation.',
      'The cooperative in {place} signed a purchase agreement with an exporter in {year}.',
      'Drought-tolerant varieties of {crop} were distributed before the planting season.',
      'Farmer field schools meet every two weeks on a demonstration plot.',
      'Prices for {crop} dropped sharply after the harvest, which hurt farmers without storage.',
    ],
  },
  {
    programs: ['Inclusive Finance Programme', 'Youth Employment Programme'],
    titles: [
      'Inclusive finance for {group} in {country}',
      'Village savings and loan associations in {place}',
      'Youth entrepreneurship in {place}',
      'SME development and decent jobs in {country}',
      'Women’s economic empowerment in {place}',
    ],
    titlesEs: ['Emprendimiento juvenil en {place}', 'Microfinanzas para mujeres rurales de {country}'],
    titlesFr: ['Autonomisation économique des femmes à {place}', 'Épargne et crédit communautaires – {country}'],
    results: [
      'Increased income of participating households',
      'Savings groups provide access to small loans',
      'Young entrepreneurs start and grow businesses',
      'Women participate in household financial decisions',
    ],
    indicators: [
      'Number of savings groups established',
      'Number of businesses started by trained youth',
      'Total savings mobilised by groups (EUR)',
      'Percentage of loans repaid on time',
      'Number of jobs created',
      'Number of women with access to financial services',
    ],
    sentences: [
      '{n} savings groups were formed, most of them led by women.',
      'Loans are mainly used for petty trade, school fees and livestock.',
      'The business incubator in {place} coaches young entrepreneurs for six months.',
      'Mobile money makes it easier for groups to keep their savings safe.',
      'By {year} most groups were operating without support from the project.',
    ],
  },
  {
    programs: ['Climate Resilience Programme', 'Energy Access Programme'],
    titles: [
      'Renewable energy for rural health centres in {country}',
      'Solar home systems for {group} in {place}',
      'Clean cooking solutions in {place}',
      'Biogas for dairy farmers in {country}',
      'Mangrove restoration and coastal resilience in {place}',
      'Community forest management in {place}',
    ],
    titlesEs: ['Energía solar para comunidades aisladas de {place}', 'Restauración de bosques en {place}'],
    titlesFr: ['Énergie solaire pour les centres de santé – {country}', 'Gestion communautaire des forêts à {place}'],
    results: [
      'Households have access to clean and affordable energy',
      'Reduced deforestation in the project area',
      'Communities are better prepared for climate shocks',
      'Local technicians install and maintain energy systems',
    ],
    indicators: [
      'Number of solar home systems installed',
      'Number of improved cookstoves sold',
      'Number of hectares of forest restored',
      'Number of biogas digesters constructed',
      'Percentage of installed systems still functioning',
      'Tonnes of CO2 emissions avoided',
    ],
    sentences: [
      '{n} solar home systems were sold on a pay-as-you-go basis.',
      'Local technicians in {place} were certified to install and repair the systems.',
      'Improved cookstoves use about half as much firewood as a three-stone fire.',
      'Communities replanted mangroves along {n} kilometres of coastline.',
      'Floods in {year} damaged part of the infrastructure, which has since been repaired.',
    ],
  },
  {
    programs: ['Voice for Change', 'Power of Voices Partnership'],
    titles: [
      'Strengthening civil society in {country}',
      'Inclusive local governance in {place}',
      'Land rights for {group} in {country}',
      'Peacebuilding and social cohesion in {place}',
      'Ending child marriage in {place}',
      'Gender equality and women’s leadership in {country}',
    ],
    titlesEs: ['Derechos de las mujeres indígenas en {place}', 'Gobernanza local participativa en {country}'],
    titlesFr: ['Gouvernance locale inclusive à {place}', 'Droits fonciers des femmes – {country}'],
    results: [
      'Civil society organisations influence local policies',
      'Citizens participate in local budget planning',
      'Women hold leadership positions in community structures',
      'Reduced incidence of gender-based violence',
      'Land titles are registered for vulnerable households',
    ],
    indicators: [
      'Number of civil society organisations supported',
      'Number of policy changes influenced',
      'Percentage of women in local decision-making bodies',
      'Number of land certificates issued',
      'Number of cases of gender-based violence referred to services',
      'Number of community dialogues held',
    ],
    sentences: [
      'Community dialogues brought together elders, women and young people in {n} villages.',
      'The district council of {place} adopted a by-law against child marriage in {year}.',
      'Partner organisations received training in advocacy and financial management.',
      'Paralegals support households in registering their land.',
      'Civic space remains under pressure, and partners report increased scrutiny.',
    ],
  },
  {
    programs: ['Emergency Response Programme', 'Relief Alliance'],
    humanitarian: true,
    titles: [
      'Emergency response for displaced families in {place}',
      'Cash assistance for {group} in {country}',
      'Disaster risk reduction in {place}',
      'Cholera prevention and response in {place}',
      'Education in emergencies for refugee children in {country}',
    ],
    titlesEs: ['Respuesta humanitaria a familias desplazadas en {place}'],
    titlesFr: ['Réponse d’urgence aux familles déplacées à {place}'],
    results: [
      'Affected households meet their basic needs',
      'Communities have early warning systems in place',
      'Displaced children continue their education',
      'Reduced spread of waterborne diseases',
    ],
    indicators: [
      'Number of households receiving cash transfers',
      'Number of hygiene kits distributed',
      'Number of children attending temporary learning spaces',
      'Percentage of households with adequate shelter',
      'Number of community early warning committees trained',
    ],
    sentences: [
      '{n} households received monthly cash transfers through mobile money.',
      'Hygiene kits and water purification tablets were distributed in the camps near {place}.',
      'Access to some areas was restricted for several weeks because of insecurity.',
      'The early warning committee in {place} evacuated families before the floods of {year}.',
      'Temporary learning spaces host about {n} children in two shifts.',
    ],
  },
];

export const GROUPS = [
  'smallholder farmers', 'women', 'young people', 'school children', 'households', 'refugees',
  'persons with disabilities', 'fishing communities', 'health workers', 'teachers', 'adolescent girls',
  'coffee farmers', 'pastoralists', 'small entrepreneurs',
];

export const CROPS = [
  'coffee', 'cocoa', 'maize', 'rice', 'cassava', 'sorghum', 'cashew', 'shea', 'quinoa', 'beans',
  'potato', 'honey', 'tea', 'banana',
];

export const CROPS_ES = ['café', 'cacao', 'maíz', 'arroz', 'frijol', 'plátano', 'banano', 'algodón'];
export const CROPS_FR = ['cacao', 'maïs', 'riz', 'sorgho', 'anacarde', 'karité', 'mil', 'niébé'];

/** Sentences any project could have, to pad descriptions and updates: English, Spanish, French. */
export const COMMON_SENTENCES: readonly (readonly string[])[] = [
  [
    'The project is implemented together with local partner organisations.',
    'A baseline study was carried out in the first quarter.',
    'The midterm review recommended focusing on fewer districts.',
    'Progress was slower than planned because of the rainy season.',
    'Activities were adapted after the COVID-19 restrictions were lifted.',
    'All data are collected on smartphones and reviewed monthly.',
    'The steering committee meets twice a year to review progress.',
    'Local authorities were involved from the start to ensure ownership.',
    'The project contributes to SDG 5 and SDG 6.',
    'Lessons learned are shared with other programmes in the region.',
    'Inflation increased the cost of materials considerably.',
    'An external evaluation is planned for the final year.',
  ],
  [
    'El proyecto trabaja con organizaciones comunitarias y autoridades locales.',
    'La evaluación intermedia se realizó en colaboración con la municipalidad.',
    'Las lluvias retrasaron las obras durante dos meses.',
  ],
  [
    'Le projet est mis en œuvre avec des associations locales.',
    'Les activités ont repris après la saison des pluies.',
    'Les comités de gestion se réunissent chaque mois.',
  ],
];
