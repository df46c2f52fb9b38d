export {
  type Labels,
  LABEL_KEY_MAX_LENGTH,
  LABEL_VALUE_MAX_LENGTH,
  MAX_LABELS,
  sameLabels,
  validateLabelKey,
  validateLabelValue,
  validateLabels,
} from './labels';
export { DNS1123_LABEL_MAX_LENGTH, DNS1123_SUBDOMAIN_MAX_LENGTH, validateDns1123Label, validateDns1123Subdomain } from './names';
export { LabelSelector, MAX_SELECTOR_LENGTH, MAX_SELECTOR_REQUIREMENTS, type Operator, type Requirement } from './label-selector';
