// Every ```mermaid block of README.md and docs/*.md parses with mermaid's own
// parser, so a diagram that would not render on the code host fails here; and
// the state diagram says what libs/core's status machine does.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { JSDOM } from 'jsdom';
import { DOMAIN_STATUSES, nextStatus } from '@cds/core';

const ROOT = path.join(__dirname, '..', '..');
const FILES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

interface Block {
  file: string;
  line: number;
  text: string;
}

/** The ```mermaid blocks of a Markdown text, with the line each starts on. */
function mermaidBlocks(file: string): Block[] {
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  let open: { line: number; body: string[] } | null = null;
  lines.forEach((line, index) => {
    if (open === null) {
      if (line.trim() === '```mermaid') open = { line: index + 1, body: [] };
    } else if (line.trim() === '```') {
      blocks.push({ file, line: open.line, text: open.body.join('\n') });
      open = null;
    } else {
      open.body.push(line);
    }
  });
  if (open !== null) throw new Error(`${file}:${(open as { line: number }).line}: a mermaid block is never closed`);
  return blocks;
}

const BLOCKS = FILES.flatMap(mermaidBlocks);

interface Mermaid {
  parse(text: string): Promise<{ diagramType: string }>;
}

/**
 * mermaid's browser bundle, run in a jsdom window: the package itself, with
 * the DOM it expects (DOMPurify sanitizes labels through it), and no ES module
 * loading inside jest. Loaded once: compiling the bundle takes a moment.
 */
function loadMermaid(): Mermaid {
  const dom = new JSDOM('<!doctype html><html><body></body></html>', { runScripts: 'outside-only', pretendToBeVisual: true });
  const bundle = readFileSync(require.resolve('mermaid/dist/mermaid.min.js'), 'utf8');
  // A Script, not window.eval: its top-level `var` must land on the window.
  new vm.Script(bundle, { filename: 'mermaid.min.js' }).runInContext(dom.getInternalVMContext());
  return (dom.window as unknown as { mermaid: Mermaid }).mermaid;
}

describe('mermaid diagrams in the docs', () => {
  let mermaid: Mermaid;
  beforeAll(() => {
    mermaid = loadMermaid();
  });

  it('are there: the three of docs/architecture.md and the state diagram of the README', () => {
    const kinds = (file: string) => BLOCKS.filter((b) => b.file === file).map((b) => b.text.trimStart().split(/\s/)[0]);
    expect(kinds('docs/architecture.md')).toEqual(['flowchart', 'sequenceDiagram', 'stateDiagram-v2']);
    expect(kinds('README.md')).toEqual(['stateDiagram-v2']);
  });

  it('the parser refuses a broken diagram (so a pass means something)', async () => {
    await expect(mermaid.parse('stateDiagram-v2\n  ready -> attention_required')).rejects.toThrow(/Parse error/);
  });

  it.each(BLOCKS.map((block) => [`${block.file}:${block.line}`, block] as const))('%s parses', async (_where, block) => {
    const parsed = await mermaid.parse(block.text);
    expect(parsed.diagramType).toEqual(expect.any(String));
  });

  it("the README's state diagram is the one of docs/architecture.md", () => {
    const states = BLOCKS.filter((b) => b.text.trimStart().startsWith('stateDiagram-v2'));
    expect(states.map((b) => b.file)).toEqual(['README.md', 'docs/architecture.md']);
    expect(states[0]?.text).toBe(states[1]?.text);
  });
});

describe('the state diagram', () => {
  const block = BLOCKS.find((b) => b.file === 'docs/architecture.md' && b.text.trimStart().startsWith('stateDiagram-v2'));
  const lines = (block?.text ?? '').split('\n').map((line) => line.trim());
  /** The status each state stands for: a status itself, or a state inside a status's `state <status> { … }`. */
  const statusOf = new Map<string, string>();
  const arrows: Array<{ from: string; to: string; label: string }> = [];
  const open: string[] = [];
  for (const line of lines) {
    const composite = /^state (\S+) \{$/.exec(line);
    const named = /^state "[^"]*" as (\S+)$/.exec(line);
    const move = /^(\S+) --> (\S+?)(?::\s*(.*))?$/.exec(line);
    if (composite) open.push(composite[1] as string);
    else if (line === '}') open.pop();
    else if (named && open.length > 0) statusOf.set(named[1] as string, open[open.length - 1] as string);
    else if (move) arrows.push({ from: move[1] as string, to: move[2] as string, label: move[3] ?? '' });
  }
  const status = (state: string) => statusOf.get(state) ?? state;
  const between = (from: string, to: string) => arrows.filter((a) => status(a.from) === from && status(a.to) === to && a.from !== '[*]' && a.to !== '[*]');

  it('names only the statuses of libs/core, and states inside one of them', () => {
    const named = new Set(arrows.flatMap((a) => [a.from, a.to]).filter((s) => s !== '[*]').map(status));
    expect([...named].sort()).toEqual([...DOMAIN_STATUSES].sort());
  });

  it('has every change of status nextStatus makes, labelled with its event, and no other', () => {
    const live = DOMAIN_STATUSES.filter((s) => s !== 'deleting');
    const changes = live.flatMap((from) => [true, false].map((allPassing) => ({ from, ...nextStatus(from, allPassing) }))).filter((m) => m.status !== m.from);
    for (const change of changes) {
      const drawn = between(change.from, change.status);
      expect(drawn).toHaveLength(1);
      expect(drawn[0]?.label).toContain(change.event);
    }
    const drawnChanges = arrows.filter((a) => a.from !== '[*]' && a.to !== '[*]' && a.to !== 'deleting' && status(a.from) !== status(a.to));
    expect(drawnChanges.map((a) => `${status(a.from)}->${status(a.to)}`).sort()).toEqual(changes.map((m) => `${m.from}->${m.status}`).sort());
  });

  it('keeps a ready domain ready while a failure is being confirmed (DECISIONS §11)', () => {
    expect(between('ready', 'ready').length).toBeGreaterThan(0);
    const confirmed = between('ready', 'attention_required')[0]?.label ?? '';
    expect(confirmed).toContain('CHECK_CONFIRMATIONS');
    expect(confirmed).toContain('CHECK_OUTAGE_GRACE');
  });

  it('deletes from every live status', () => {
    for (const from of DOMAIN_STATUSES.filter((s) => s !== 'deleting')) {
      expect(between(from, 'deleting')[0]?.label).toMatch(/^DELETE\b.*domain\.deleted/);
    }
  });
});
