import { applyLabel, archiveSender, markRead, spamRescue } from './templates-organize.ts';
import { attachmentTotal, findCode, relayTracking } from './templates-read.ts';
import { signature, vacation } from './templates-settings.ts';
import { compose, forward, reply } from './templates-write.ts';

/** Every mail template, roughly easy to hard. */
export const MAIL_TEMPLATES = [
  findCode,
  attachmentTotal,
  applyLabel,
  spamRescue,
  signature,
  markRead,
  archiveSender,
  reply,
  compose,
  forward,
  relayTracking,
  vacation,
];
