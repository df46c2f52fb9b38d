export { type Labels, MAX_LABELS, validateLabelKey, validateLabelValue, validateLabels } from './labels';
export { validateDns1123Label, validateDns1123Subdomain } from './names';
export { LabelSelector, MAX_SELECTOR_LENGTH, MAX_SELECTOR_REQUIREMENTS, type Operator, type Requirement } from './label-selector';
