import {
  buildingPermit,
  businessLicense,
  changeOfAddress,
  foodAssistance,
  libraryCard,
  parkingPermit,
  passportRenewal,
} from './templates-apply.ts';
import { feeLookup, statusLookup } from './templates-info.ts';

/** Every forms template, easy to hard. */
export const FORMS_TEMPLATES = [
  feeLookup,
  statusLookup,
  libraryCard,
  businessLicense,
  buildingPermit,
  foodAssistance,
  passportRenewal,
  changeOfAddress,
  parkingPermit,
];
