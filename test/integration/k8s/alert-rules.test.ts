// The alert rules, checked by Prometheus's own promtool: the rules files parse
// (`promtool check rules`), and test/prometheus/alerts.test.yaml's unit tests
// pass (`promtool test rules`). Every alert must have a case that fires it and
// one that keeps it silent. promtool comes with Debian's prometheus package
// (scripts/ensure-services.sh installs it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHART, kustomize, ofKind, renderChart, ROOT, yamlDocuments } from '../../support/k8s-tools';

const RULES = path.join(CHART, 'files/alerts.yaml');
const UNIT_TESTS = path.join(ROOT, 'test/prometheus/alerts.test.yaml');

interface RuleGroups {
  groups: Array<{ rules: Array<{ alert?: string }> }>;
}
interface UnitTests {
  rule_files: string[];
  tests: Array<{ name?: string; alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }> }>;
}

/** promtool's exit status and everything it printed. */
function promtool(args: string[], cwd = ROOT): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  if (result.error) throw new Error(`promtool did not run (${result.error.message}); install it with bash scripts/ensure-services.sh`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The first YAML document of a file, parsed. */
const readYaml = <T>(file: string): T => yamlDocuments<T>(readFileSync(file, 'utf8'))[0] as T;

const alertNames = (groups: RuleGroups) => groups.groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])));

describe('alert rules under promtool', () => {
  let unitTests: UnitTests;

  beforeAll(() => {
    unitTests = readYaml<UnitTests>(UNIT_TESTS);
  });

  it('the unit tests load the chart rules file', () => {
    expect(unitTests.rule_files.map((f) => path.resolve(path.dirname(UNIT_TESTS), f))).toEqual([RULES]);
  });

  it('promtool check rules accepts the chart rules file', () => {
    const { status, output } = promtool(['check', 'rules', RULES]);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('promtool check rules accepts the kustomize PrometheusRule spec', () => {
    const [rule] = ofKind(kustomize('k8s/components/monitoring'), 'PrometheusRule');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'cds-rules-')), 'rules.json');
    writeFileSync(file, JSON.stringify(rule?.spec));
    const { status, output } = promtool(['check', 'rules', file]);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it("promtool check rules accepts the chart's rendered PrometheusRule spec (namespace in CdsServiceDown, absolute runbook URLs)", () => {
    const [rule] = ofKind(renderChart(['ci/existing-secret-values.yaml'], 'cds', 'custom-domains').map((r) => r.object), 'PrometheusRule');
    expect(JSON.stringify(rule?.spec)).toContain('namespace=\\"custom-domains\\"');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'cds-rules-')), 'rules.json');
    writeFileSync(file, JSON.stringify(rule?.spec));
    const { status, output } = promtool(['check', 'rules', file]);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('promtool test rules passes test/prometheus/alerts.test.yaml', () => {
    const { status, output } = promtool(['test', 'rules', path.basename(UNIT_TESTS)], path.dirname(UNIT_TESTS));
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it("links every alert to a heading of its runbook page", () => {
    // GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens.
    const anchor = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const runbooks = [...readFileSync(RULES, 'utf8').matchAll(/- alert: (\S+)[\s\S]*?runbook: (\S+)#(\S+)/g)];
    expect(runbooks.length).toBe(alertNames(readYaml<RuleGroups>(RULES)).length);
    const missing = runbooks.filter(([, , page = '', fragment]) => {
      const headings = [...readFileSync(path.join(ROOT, page), 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1] ?? ''));
      return !headings.includes(fragment ?? '');
    }).map(([, alert, page, fragment]) => `${alert}: ${page}#${fragment}`);
    expect(missing).toEqual([]);
  });

  it('has a firing and a silent case for every alert, and no case for an alert that does not exist', () => {
    const alerts = alertNames(readYaml<RuleGroups>(RULES));
    expect(alerts.length).toBeGreaterThan(10);
    const cases = unitTests.tests.flatMap((t) => t.alert_rule_test ?? []);
    const coverage = (alert: string) => {
      const mine = cases.filter((c) => c.alertname === alert);
      return { alert, fires: mine.some((c) => (c.exp_alerts ?? []).length > 0), silent: mine.some((c) => (c.exp_alerts ?? []).length === 0) };
    };
    expect(alerts.map(coverage)).toEqual(alerts.map((alert) => ({ alert, fires: true, silent: true })));
    expect(cases.map((c) => c.alertname).filter((name) => !alerts.includes(name))).toEqual([]);
  });
});
