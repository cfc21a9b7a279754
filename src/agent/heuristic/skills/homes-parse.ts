import { addressesIn } from './forms-values.ts';
import { isoDatesIn } from './mail-parse.ts';

/**
 * Reading a home-search request the way a buyer states it: which home (an address) or which
 * filters (city, type, bedrooms, budget, a must-have), what ordering the superlative implies, and
 * what to do or report (count, price, address, save, tour, ask the agent, mortgage, sale history).
 */

export type HomesKind =
  | 'count'
  | 'pick'
  | 'save-address'
  | 'save-pick'
  | 'last-sold'
  | 'mortgage'
  | 'contact'
  | 'tour';
export type HomesSort = 'price-asc' | 'price-desc' | 'sqft' | 'newest' | null;

export interface HomesTask {
  kind: HomesKind;
  /** Street line of a named home, unit included ("134 Walnut Way Unit 6C"). */
  address: string | null;
  /** Home type word as the task says it ("condo", "multi-family home"). */
  type: string | null;
  /** Bedroom filter: "2" exactly, "2+" at least. */
  beds: string | null;
  maxPrice: number | null;
  sort: HomesSort;
  /** What an information task reports. */
  report: { price: boolean; address: boolean };
  mortgage: { down: string; rate: string; term: string } | null;
}

/** The bedroom constraint: "exactly 2 bedrooms" -> "2", "at least 3" / "3 or more" / "3+ bedrooms" -> "3+". */
export function bedsOf(text: string): string | null {
  const atLeast =
    text.match(/\bat least (\d+) (?:bed|bedroom)s?\b/i) ??
    text.match(/\b(\d+) or more (?:bed|bedroom)s?\b/i) ??
    text.match(/\b(\d+)\+ ?(?:bed|bedroom|bd)s?\b/i);
  if (atLeast) return `${atLeast[1]}+`;
  const exact = text.match(/\b(?:exactly )?(\d+|one|two|three|four|five)[- ](?:bed|bedroom|bd)s?\b/i);
  if (!exact) return null;
  const words: Record<string, string> = { one: '1', two: '2', three: '3', four: '4', five: '5' };
  return words[exact[1].toLowerCase()] ?? exact[1];
}

/** A price cap: "at or under $450,000", "budget is $1.5 million", "up to $600k". */
export function maxPriceOf(text: string): number | null {
  const m = text.match(
    /\b(?:under|below|at most|up to|no more than|budget(?: is)?(?: of)?|max(?:imum)?(?: price)?(?: of)?|or less than|at or under)\s+\$([\d,.]+)\s*(million|m|k|thousand)?\b/i,
  );
  if (!m) return null;
  const n = Number(m[1].replace(/,/g, ''));
  const unit = (m[2] ?? '').toLowerCase();
  return unit === 'million' || unit === 'm'
    ? n * 1_000_000
    : unit === 'k' || unit === 'thousand'
      ? n * 1000
      : n;
}

/** The ordering a superlative asks for. */
export function sortOf(text: string): HomesSort {
  if (/\b(cheapest|least expensive|lowest[- ]priced|lowest price)\b/i.test(text)) return 'price-asc';
  if (/\b(most expensive|priciest|highest[- ]priced)\b/i.test(text)) return 'price-desc';
  if (/\b(most square feet|largest|biggest|most space|by square footage)\b/i.test(text)) return 'sqft';
  if (/\b(newest|most recent(?:ly)?|latest|listed most recently)\b/i.test(text)) return 'newest';
  return null;
}

const TYPES =
  /\b(multi-?family(?: homes?)?|townhouses?|townhomes?|condos?|condominiums?|houses?|single-family homes?)\b/i;

function mortgageOf(text: string): HomesTask['mortgage'] {
  const down =
    text.match(/\b(\d+(?:\.\d+)?)% down\b/i)?.[1] ?? text.match(/\bdown payment of (\d+(?:\.\d+)?)%/i)?.[1];
  const rate =
    text.match(/\b(\d+(?:\.\d+)?)% (?:interest|rate|apr)\b/i)?.[1] ??
    text.match(/\bat (\d+(?:\.\d+)?)%/i)?.[1] ??
    text.match(/\brate of (\d+(?:\.\d+)?)%/i)?.[1];
  const term = text.match(/\b(\d{2})[- ]year\b/i)?.[1] ?? text.match(/\bfor (\d{2}) years\b/i)?.[1];
  return down && rate && term ? { down, rate, term } : null;
}

/** Parses a home-search task. */
export function parseHomesTask(text: string): HomesTask {
  const address = addressesIn(text)[0]?.street ?? null;
  const t = text.toLowerCase();
  let kind: HomesKind = 'pick';
  if (/price history|last sell|last sold|sold for/.test(t)) kind = 'last-sold';
  else if (/mortgage|monthly payment/.test(t)) kind = 'mortgage';
  else if (/listing agent|\bthe agent\b|contact the agent|ask the agent/.test(t)) kind = 'contact';
  else if (/\btour\b/.test(t)) kind = 'tour';
  else if (/\bsave\b|saved homes|favou?rites/.test(t)) kind = address ? 'save-address' : 'save-pick';
  else if (/\bhow many\b|\bcount\b|\bnumber of\b/.test(t)) kind = 'count';
  const ask = t.replace(/\bless expensive|least expensive|most expensive|priced\b/g, '');
  return {
    kind,
    address,
    type: text.match(TYPES)?.[1] ?? null,
    beds: bedsOf(text),
    maxPrice: maxPriceOf(text),
    sort: sortOf(text),
    report: {
      price: /\bprice\b|how much|cost|\bpriciest\b.*\bhow much\b/.test(ask) || /how much is it/.test(t),
      address: /\baddress\b|which (home|house|condo|townhouse|listing)/.test(t),
    },
    mortgage: kind === 'mortgage' ? mortgageOf(text) : null,
  };
}

/** The dates the task names, ISO (tour day). */
export const datesOf = isoDatesIn;
