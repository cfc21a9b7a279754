/** A tour request submitted from a listing. */
export interface TourRequest {
  listingId: string;
  tourType: string;
  /** ISO day. */
  date: string;
  time: string;
  name: string;
  email: string;
  phone: string;
  message: string;
}

/** A message sent to a listing agent. */
export interface AgentMessage {
  listingId: string;
  name: string;
  email: string;
  phone: string;
  message: string;
}

/** Per-session state of the listings site. */
export interface HomesState {
  /** Saved listing ids, in the order they were saved. */
  saved: string[];
  tours: TourRequest[];
  messages: AgentMessage[];
}

export function initialHomesState(): HomesState {
  return { saved: [], tours: [], messages: [] };
}
