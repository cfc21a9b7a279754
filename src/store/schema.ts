/** SQLite layout of a run store. Bump STORE_SCHEMA_VERSION and add a migration when it changes. */
export const STORE_SCHEMA_VERSION = 1;

export const DDL = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trajectories (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  episode_key TEXT UNIQUE,
  task_id TEXT NOT NULL,
  site TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  round INTEGER NOT NULL,
  success INTEGER,
  score REAL,
  steps INTEGER NOT NULL,
  tags TEXT NOT NULL,
  notes INTEGER NOT NULL,
  saved_at TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS trajectories_task ON trajectories(task_id);
CREATE INDEX IF NOT EXISTS trajectories_agent ON trajectories(agent_id);
CREATE TABLE IF NOT EXISTS reflections (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  task_id TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reflections_task ON reflections(task_id);
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (kind, key)
);
CREATE TABLE IF NOT EXISTS metrics (
  series TEXT NOT NULL,
  step REAL NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (series, step)
);
`;
