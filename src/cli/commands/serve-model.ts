import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../core/errors.ts';
import { fileOption, intOption, numberOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';
import { GRAMMAR_CACHE_SIZE } from '../serve-model/grammar-cache.ts';
import { DEFAULT_MAX_BODY_BYTES } from '../serve-model/http.ts';
import { LlamaBackend } from '../serve-model/llama-backend.ts';
import { DEFAULT_SCHEMA_LIMITS } from '../serve-model/response-schema.ts';
import { ModelServer, statsView } from '../serve-model/server.ts';

const MIB = 1024 * 1024;

const Options = z.object({
  gguf: fileOption('is required (a .gguf file; bash scripts/get-local-model.sh prints one)'),
  port: intOption(0, 65535).default(8088),
  ctx: intOption(256, 131072).default(8192),
  threads: intOption(1, 256).default(1),
  maxString: intOption(0, 1_000_000).default(300),
  maxSchemaBytes: intOption(1, 64 * MIB).default(DEFAULT_SCHEMA_LIMITS.maxBytes),
  maxSchemaDepth: intOption(1, 512).default(DEFAULT_SCHEMA_LIMITS.maxDepth),
  maxEnum: intOption(1, 1_000_000).default(DEFAULT_SCHEMA_LIMITS.maxEnum),
  maxBodyMb: intOption(1, 4096).default(DEFAULT_MAX_BODY_BYTES / MIB),
  timeout: intOption(0, 86_400).default(0),
  grammarCache: intOption(1, 4096).default(GRAMMAR_CACHE_SIZE),
  quiet: z.boolean().default(false),
  lora: z.array(fileOption()).default([]),
  loraScale: z.array(numberOption(-100, 100)).default([]),
});

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `rmsweb serve-model`: a local GGUF model behind the OpenAI chat-completions and completions APIs. */
export function registerServeModel(program: Command): void {
  program
    .command('serve-model')
    .description(
      'Serve a local GGUF model on 127.0.0.1 behind the OpenAI chat-completions API (POST /v1/chat/completions),\n' +
        'so every LLM role can use it: --teacher/--reflector/--judge/--rewriter openai:NAME@http://127.0.0.1:PORT/v1.\n' +
        'response_format json_schema is enforced by a grammar; n, temperature, top_p, seed, stop and logprobs\n' +
        '(with top_logprobs) are honoured; image parts are refused with code image_input_unsupported (the model\n' +
        'is text-only; rmsweb clients then resend text only). Each request logs its tokens and tokens/s on\n' +
        'stderr; GET /v1/stats gives the totals. Runs on the CPU with node-llama-cpp, installed outside the main\n' +
        'install by scripts/get-local-model.sh, which also prints the bundled model (Gemma 3 270M, Q4_K_M).\n' +
        'Abuse is refused before it reaches the model: a json_schema over the limits below, with an unknown type\n' +
        'or a $ref to nothing gets a 400 naming the problem; a body over --max-body-mb a 413. A grammar-bound\n' +
        'reply stops once its root value is complete.\n' +
        'It also answers the legacy completions API (POST /v1/completions): the prompt is continued as is, with no\n' +
        'chat template (BOS first), as a base model without one is trained and prompted (export sft --format lm,\n' +
        'the agent lm:openai:NAME@http://127.0.0.1:PORT/v1); max_tokens, temperature (0: greedy), stop, n, seed,\n' +
        'top_p and logprobs are honoured, stream, echo and suffix refused with a 400.\n' +
        'With --lora, a fine-tuned student is served over its base GGUF: the LoRA adapter GGUF that\n' +
        '`rmsweb export gguf --model DIR` writes from a `--lora` run, applied to both endpoints.',
    )
    .option('--gguf <file>', 'the GGUF model file')
    .option('--port <n>', 'port on 127.0.0.1 (0 picks a free one)', '8088')
    .option('--ctx <n>', 'context size in tokens (prompt + reply)', '8192')
    .option('--threads <n>', 'CPU threads (more than the free cores makes llama.cpp slower, not faster)', '1')
    .option(
      '--max-string <n>',
      'cap every free string of a json_schema reply at N characters, so a small model cannot loop inside one (0: no cap)',
      '300',
    )
    .option(
      '--max-schema-bytes <n>',
      'refuse (400) a json_schema over N bytes of JSON: turning a schema into a grammar holds the model',
      String(DEFAULT_SCHEMA_LIMITS.maxBytes),
    )
    .option(
      '--max-schema-depth <n>',
      'refuse (400) a json_schema nested deeper than N subschemas',
      String(DEFAULT_SCHEMA_LIMITS.maxDepth),
    )
    .option(
      '--max-enum <n>',
      'refuse (400) a json_schema with an enum, anyOf or oneOf of more than N entries (llama.cpp compiles ' +
        'one of 20,000 in seconds, 200,000 in minutes)',
      String(DEFAULT_SCHEMA_LIMITS.maxEnum),
    )
    .option(
      '--max-body-mb <n>',
      'answer 413 to a request body over N MiB',
      String(DEFAULT_MAX_BODY_BYTES / MIB),
    )
    .option(
      '--timeout <seconds>',
      'answer 504 to a request not done in N s, queueing included, and stop its generation (0: no limit; ' +
        'a client that hangs up always frees the model within a token or a prompt chunk)',
      '0',
    )
    .option(
      '--grammar-cache <n>',
      'compiled grammars kept, least recently used dropped first',
      String(GRAMMAR_CACHE_SIZE),
    )
    .option('--quiet', 'no per-request log lines')
    .option(
      '--lora <file>',
      'a llama.cpp LoRA adapter GGUF to apply over --gguf (rmsweb export gguf writes one); repeat to stack ' +
        "adapters (a LoRA run started from a merged LoRA checkpoint: that checkpoint's adapter, then its own)",
      collect,
    )
    .option(
      '--lora-scale <x>',
      "an adapter's strength, times its own alpha / rank (default 1: as trained); one for all, or one per --lora",
      collect,
    )
    .action(async (raw) => {
      const o = parseOptions(Options, { gguf: '', ...raw }, 'serve-model');
      if (o.loraScale.length > 1 && o.loraScale.length !== o.lora.length)
        throw new InputError(
          `${o.loraScale.length} --lora-scale values for ${o.lora.length} --lora adapters: give one for all, or one per adapter`,
          { field: '--lora-scale' },
        );
      if (o.loraScale.length && !o.lora.length)
        throw new InputError('--lora-scale applies to a --lora adapter; give --lora FILE.gguf', {
          field: '--lora-scale',
        });
      const lora = o.lora.map((file, i) => ({
        file,
        scale: o.loraScale[o.loraScale.length > 1 ? i : 0] ?? 1,
      }));
      const t0 = Date.now();
      const backend = await LlamaBackend.open({
        gguf: o.gguf,
        contextSize: o.ctx,
        threads: o.threads,
        grammarCacheSize: o.grammarCache,
        lora,
      });
      let server: ModelServer;
      try {
        server = await ModelServer.start({
          backend,
          port: o.port,
          maxStringLength: o.maxString,
          schemaLimits: { maxBytes: o.maxSchemaBytes, maxDepth: o.maxSchemaDepth, maxEnum: o.maxEnum },
          maxBodyBytes: o.maxBodyMb * MIB,
          timeoutMs: o.timeout * 1000,
          log: o.quiet ? undefined : (line) => process.stderr.write(`serve-model: ${line}\n`),
        });
      } catch (e) {
        await backend.close();
        if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
          throw new InputError(`port ${o.port} is in use; pick another with --port`, { field: '--port' });
        throw e;
      }
      process.stdout.write(
        `rmsweb serve-model: ${backend.modelId} (${backend.adapters.map((a) => `LoRA ${a.file} at scale ${a.scale}, `).join('')}` +
          `${backend.chatTemplate} chat template, context ${backend.contextSize}, ` +
          `${o.threads} thread(s), loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s) at ${server.url}\n` +
          `  use it as openai:${backend.modelId}@${server.url}; Ctrl-C to stop\n`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      const s = statsView(server.stats);
      process.stderr.write(
        `serve-model: ${s.requests} request(s), ${s.promptTokens} prompt tokens at ${s.promptTokensPerSecond} tok/s, ` +
          `${s.completionTokens} generated at ${s.generationTokensPerSecond} tok/s\n`,
      );
      await server.close();
      await backend.close();
    });
}
