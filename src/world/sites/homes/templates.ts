import {
  contactAgent,
  mortgage,
  saveAddress,
  saveCheapestFeature,
  scheduleTour,
} from './templates-actions.ts';
import {
  cheapestMin,
  countExact,
  largestHome,
  lastSold,
  newestInHood,
  priciestExact,
} from './templates-info.ts';

/** Every homes template, easy to hard. */
export const HOMES_TEMPLATES = [
  countExact,
  newestInHood,
  saveAddress,
  priciestExact,
  cheapestMin,
  largestHome,
  lastSold,
  saveCheapestFeature,
  mortgage,
  contactAgent,
  scheduleTour,
];
