/**
 * `node dist/bench/ab.js <label>=<results.json> ...`: the A/B table of several `npm run bench`
 * rounds per variant (ab-table.ts), printed as markdown. Run the variants' rounds in rotation
 * (A, B, A, B, ..., at least three each) so that a change of the machine's load falls on all.
 */
import { readFileSync } from 'node:fs';
import { type AbRound, abTable, variantFiles } from './ab-table.js';

const variants = new Map<string, AbRound[]>();
for (const [label, files] of variantFiles(process.argv.slice(2)))
  variants.set(
    label,
    files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as AbRound),
  );
console.log(abTable(variants));
