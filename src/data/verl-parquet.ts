import { parquetWriteBuffer } from 'hyparquet-writer';
import { writeFileAtomic } from '../store/index.ts';

/**
 * One row of verl's RL dataset (RLHFDataset): a chat `prompt` whose user turn carries `<image>`
 * where each entry of `images` goes, `images` as HF-datasets Image structs ({bytes, path}),
 * `reward_model` for a rule-based reward, and free `extra_info` passed to the reward function.
 */
export interface VerlRow {
  data_source: string;
  prompt: Array<{ role: string; content: string }>;
  images: Array<{ bytes: Uint8Array; path: string }>;
  ability: string;
  reward_model: { style: 'rule'; ground_truth: string };
  extra_info: VerlExtraInfo;
}

export interface VerlExtraInfo {
  split: string;
  index: number;
  critical_state_id: string;
  task_id: string;
  site: string;
  label: string;
  label_source: string;
  success_trajectory_id: string;
  success_step: number;
  failure_trajectory_id: string;
  failure_step: number;
  failure_action: string;
  comparability: number;
}

const str = (name: string) => ({
  name,
  type: 'BYTE_ARRAY' as const,
  converted_type: 'UTF8' as const,
  repetition_type: 'REQUIRED' as const,
});
const i64 = (name: string) => ({ name, type: 'INT64' as const, repetition_type: 'REQUIRED' as const });

const EXTRA_FIELDS: Array<[keyof VerlExtraInfo, 'string' | 'int' | 'double']> = [
  ['split', 'string'],
  ['index', 'int'],
  ['critical_state_id', 'string'],
  ['task_id', 'string'],
  ['site', 'string'],
  ['label', 'string'],
  ['label_source', 'string'],
  ['success_trajectory_id', 'string'],
  ['success_step', 'int'],
  ['failure_trajectory_id', 'string'],
  ['failure_step', 'int'],
  ['failure_action', 'string'],
  ['comparability', 'double'],
];

/** The parquet schema (flattened, depth-first) matching what HF `datasets` writes for these columns. */
function verlSchema() {
  return [
    { name: 'root', num_children: 6 },
    str('data_source'),
    {
      name: 'prompt',
      repetition_type: 'REQUIRED' as const,
      converted_type: 'LIST' as const,
      num_children: 1,
    },
    { name: 'list', repetition_type: 'REPEATED' as const, num_children: 1 },
    { name: 'element', repetition_type: 'REQUIRED' as const, num_children: 2 },
    str('role'),
    str('content'),
    {
      name: 'images',
      repetition_type: 'REQUIRED' as const,
      converted_type: 'LIST' as const,
      num_children: 1,
    },
    { name: 'list', repetition_type: 'REPEATED' as const, num_children: 1 },
    { name: 'element', repetition_type: 'REQUIRED' as const, num_children: 2 },
    { name: 'bytes', type: 'BYTE_ARRAY' as const, repetition_type: 'OPTIONAL' as const },
    {
      name: 'path',
      type: 'BYTE_ARRAY' as const,
      converted_type: 'UTF8' as const,
      repetition_type: 'OPTIONAL' as const,
    },
    str('ability'),
    { name: 'reward_model', repetition_type: 'REQUIRED' as const, num_children: 2 },
    str('style'),
    str('ground_truth'),
    { name: 'extra_info', repetition_type: 'REQUIRED' as const, num_children: EXTRA_FIELDS.length },
    ...EXTRA_FIELDS.map(([k, t]) =>
      t === 'string'
        ? str(k)
        : t === 'int'
          ? i64(k)
          : { name: k, type: 'DOUBLE' as const, repetition_type: 'REQUIRED' as const },
    ),
  ];
}

/** Writes verl rows as one parquet file (snappy-compressed), atomically. */
export function writeVerlParquet(path: string, rows: VerlRow[]): void {
  writeFileAtomic(path, verlParquetBuffer(rows));
}

/** Encodes verl rows as a parquet file in memory. */
export function verlParquetBuffer(rows: VerlRow[]): Uint8Array {
  const extra = rows.map((r) => {
    const e: Record<string, unknown> = { ...r.extra_info };
    for (const [k, t] of EXTRA_FIELDS) if (t === 'int') e[k] = BigInt(r.extra_info[k] as number);
    return e;
  });
  const buf = parquetWriteBuffer({
    columnData: [
      { name: 'data_source', data: rows.map((r) => r.data_source) },
      { name: 'prompt', data: rows.map((r) => r.prompt) },
      { name: 'images', data: rows.map((r) => r.images) },
      { name: 'ability', data: rows.map((r) => r.ability) },
      { name: 'reward_model', data: rows.map((r) => r.reward_model) },
      { name: 'extra_info', data: extra },
    ],
    schema: verlSchema(),
    kvMetadata: [{ key: 'rmsweb.kind', value: 'critical-states' }],
    createdBy: 'rmsweb',
  });
  return new Uint8Array(buf);
}
