import { lmPromptText } from '../agent/lm-prompt.ts';
import { IMAGE_SLOT } from './prompt.ts';
import type { SftExample } from './sft-flatten.ts';

/**
 * Trainer file formats for SFT examples. Each renders one example as one JSONL row, given how the
 * example's screenshot is referenced (a path, or for OpenAI a data URL).
 *
 * - trl: TRL's conversational vision format — `messages` whose `content` is a list of
 *   `{type: 'text', text}` / `{type: 'image'}` parts, and an `images` column with one entry per
 *   image part, in order.
 * - swift: ms-swift's standard format — `messages` with string content in which `<image>` marks
 *   where each image goes, and `images` with one path per `<image>`.
 * - llamafactory: LLaMA-Factory's sharegpt format with OpenAI-style role tags — `messages`
 *   (user/assistant alternating), `system`, `images`, `<image>` placeholders matching `images`;
 *   described to LLaMA-Factory by the `dataset_info.json` written beside it.
 * - openai: OpenAI's chat fine-tuning JSONL — `messages` with the user content as parts
 *   `{type: 'text'}` / `{type: 'image_url', image_url: {url}}`; images inline as data URLs.
 * - lm: TRL's standard (not conversational) prompt-completion format for a language-model student
 *   in the compact layout (src/agent/lm-prompt.ts): `prompt` is one plain text, `completion` the
 *   action as compact JSON; text only. A pretrained base model without a chat template trains on it.
 */
export const SFT_FORMATS = ['trl', 'swift', 'llamafactory', 'openai', 'lm'] as const;
export type SftFormat = (typeof SFT_FORMATS)[number];

/** The name LLaMA-Factory knows the dataset by (key of dataset_info.json). */
export const LLAMAFACTORY_DATASET_NAME = 'rmsweb_sft';
export const SFT_FILE = 'train.jsonl';

type Row = Record<string, unknown>;

function splitAtImage(user: string): { before: string; hasImage: boolean } {
  const at = user.indexOf(IMAGE_SLOT);
  return at < 0
    ? { before: user, hasImage: false }
    : { before: user.slice(0, at).replace(/\n$/, ''), hasImage: true };
}

function trl(ex: SftExample, image: string | null): Row {
  const { before, hasImage } = splitAtImage(ex.user);
  const userParts: Row[] = [{ type: 'text', text: before }];
  if (hasImage) userParts.push({ type: 'image' });
  return {
    messages: [
      { role: 'system', content: [{ type: 'text', text: ex.system }] },
      { role: 'user', content: userParts },
      { role: 'assistant', content: [{ type: 'text', text: ex.assistant }] },
    ],
    images: hasImage && image ? [image] : [],
  };
}

function placeholderUser(ex: SftExample): { content: string; hasImage: boolean } {
  const { before, hasImage } = splitAtImage(ex.user);
  return { content: hasImage ? `${before}\n<image>` : before, hasImage };
}

function swift(ex: SftExample, image: string | null): Row {
  const u = placeholderUser(ex);
  return {
    messages: [
      { role: 'system', content: ex.system },
      { role: 'user', content: u.content },
      { role: 'assistant', content: ex.assistant },
    ],
    images: u.hasImage && image ? [image] : [],
  };
}

function llamafactory(ex: SftExample, image: string | null): Row {
  const u = placeholderUser(ex);
  return {
    system: ex.system,
    messages: [
      { role: 'user', content: u.content },
      { role: 'assistant', content: ex.assistant },
    ],
    images: u.hasImage && image ? [image] : [],
  };
}

function openai(ex: SftExample, image: string | null): Row {
  const { before, hasImage } = splitAtImage(ex.user);
  const parts: Row[] = [{ type: 'text', text: before }];
  if (hasImage && image) parts.push({ type: 'image_url', image_url: { url: image } });
  return {
    messages: [
      { role: 'system', content: ex.system },
      { role: 'user', content: parts },
      { role: 'assistant', content: ex.assistant },
    ],
  };
}

function lm(ex: SftExample): Row {
  return { prompt: lmPromptText(ex), completion: ex.assistant, id: ex.id };
}

export const SFT_RENDERERS: Record<SftFormat, (ex: SftExample, image: string | null) => Row> = {
  trl,
  swift,
  llamafactory,
  openai,
  lm,
};

/** LLaMA-Factory's dataset registration for the exported file. */
export function llamafactoryDatasetInfo(fileName: string): Row {
  return {
    [LLAMAFACTORY_DATASET_NAME]: {
      file_name: fileName,
      formatting: 'sharegpt',
      columns: { messages: 'messages', system: 'system', images: 'images' },
      tags: { role_tag: 'role', content_tag: 'content', user_tag: 'user', assistant_tag: 'assistant' },
    },
  };
}
