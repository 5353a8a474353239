// Parses each Mermaid diagram of the JSON array in argv[2] with Mermaid's
// own parser and prints each one's error; exits 1 when one fails. Mermaid
// sanitises labels with DOMPurify, which needs a DOM: jsdom's.
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');

const diagrams = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let failed = 0;
for (const [i, d] of diagrams.entries()) {
  try {
    await mermaid.parse(d);
  } catch (e) {
    failed++;
    console.log(`diagram ${i + 1}: ${e.message}\n--- source:\n${d}\n`);
  }
}
process.exit(failed ? 1 : 0);
