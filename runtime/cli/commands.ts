// The `geoapi` command: dispatches to build, serve, start, reload, keys and verify. Exit codes: 0 ok, 1
// failure (message on stderr), 2 bad usage. Run by main.js (the command's entry), from its bundle
// when there is a fresh one. It is given process.env and hands it to the command, which reads it
// once into its configuration (runtime/config.ts).
import type { Env } from './config.js';
import { commandUsage, packageVersion, wantsHelp } from './help.js';
import { UsageError, USAGE } from './usage.js';

const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

async function run(argv: string[], env: Env): Promise<number> {
  const [command, ...args] = argv;
  if (command !== undefined && command !== 'help' && !command.startsWith('-') && wantsHelp(args)) {
    const help = commandUsage(command);
    if (help === null) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    print(help);
    return 0;
  }
  switch (command) {
    case 'build': {
      const { runBuildCommand } = await import('../../build-index/cli.js');
      return runBuildCommand(args);
    }
    case 'serve': {
      const { configFrom } = await import('./config.js');
      const { readAhead } = await import('./read-ahead.js');
      const config = configFrom(args, env);
      const snapshotRead = readAhead(config.snapshotDir);
      const { serveUntilStopped } = await import('./serve.js');
      return serveUntilStopped(config, print, [], {}, snapshotRead);
    }
    case 'reload': {
      const { runReloadCommand } = await import('./serve.js');
      return runReloadCommand(args, print, env);
    }
    case 'start': {
      const { runStartCommand } = await import('./start.js');
      return runStartCommand(args, print, env);
    }
    case 'keys': {
      const { runKeysCommand } = await import('./keys.js');
      return runKeysCommand(args, print, env);
    }
    case 'verify': {
      const { runVerifyCommand } = await import('./verify.js');
      return runVerifyCommand(args, print);
    }
    case '--version':
    case '-v':
    case 'version':
      print(packageVersion());
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      print(USAGE);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

/** Runs the command `argv` names and sets process.exitCode. */
export function runCommand(argv: string[], env: Env): Promise<void> {
  return run(argv, env).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      // parseArgs reports unknown options with ERR_PARSE_ARGS_* codes: a usage problem too.
      // A ConfigError (runtime/config.ts, not imported here so that `build` loads nothing of the server) is one too.
      const usage = error instanceof UsageError || (error as Error).name === 'ConfigError' || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
      process.stderr.write(`geoapi: ${message}\n${usage ? `\n${USAGE}\n` : ''}`);
      process.exitCode = usage ? 2 : 1;
    },
  );
}
