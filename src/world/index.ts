export * from './episode.ts';
export * from './server.ts';
export * from './site.ts';
export * from './solver-kit.ts';
export * from './split.ts';
export * from './tasks.ts';
export * from './ui/html.ts';
export * from './world.ts';
