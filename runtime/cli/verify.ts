// `geoapi verify <snapshot>`: prints one line per section (OK, or what is wrong), then a summary.
// Exit code 0 when every section matches the manifest and none the server needs is missing, else 1.
import { verifySnapshot } from '../store/verify.js';
import { UsageError } from './usage.js';

export async function runVerifyCommand(args: string[], print: (line: string) => void): Promise<number> {
  const positionals = args.filter((arg) => arg !== '--');
  const unknown = positionals.find((arg) => arg.startsWith('-'));
  if (unknown) throw new UsageError(`verify: unknown option ${JSON.stringify(unknown)}`);
  if (positionals.length !== 1) throw new UsageError(`verify: expected one snapshot directory, found ${positionals.length} arguments`);
  const report = await verifySnapshot(positionals[0]!);
  const width = Math.max(0, ...report.sections.map((s) => s.name.length));
  for (const section of report.sections) print(`${section.name.padEnd(width)}  ${section.ok ? 'OK' : `MISMATCH  ${section.problem}`}`);
  for (const name of report.missing) print(`${name.padEnd(width)}  MISSING  not in manifest.json; the server needs it`);
  const bad = report.sections.filter((s) => !s.ok).length;
  print(
    report.ok
      ? `${report.dir}: all ${report.sections.length} sections match manifest.json`
      : `${report.dir}: ${bad} of ${report.sections.length} sections do not match manifest.json${report.missing.length ? `; ${report.missing.length} required section(s) missing` : ''}`,
  );
  return report.ok ? 0 : 1;
}
