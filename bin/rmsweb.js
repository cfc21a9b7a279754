#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx so `npx rmsweb` works right after `npm ci`,
// with no build step for the user.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
