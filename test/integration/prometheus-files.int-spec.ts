/**
 * The shipped Prometheus files checked by Prometheus's own tool (Debian's `promtool`, installed by
 * test/harness/install-system-deps.sh): the compose and Swarm configs, the alert rules, and the
 * alert unit tests in test/prometheus/alerts.test.yml (each alert fires when it should and stays quiet
 * when it should not). test/e2e/prometheus.e2e-spec.ts evaluates the same rules on live processes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { promtool } from '../harness/prometheus';

const ROOT = join(__dirname, '..', '..');
const ALERTS = join(ROOT, 'docker', 'alerts.yml');
const ALERT_TESTS = join(ROOT, 'test', 'prometheus', 'alerts.test.yml');

interface AlertTests {
  rule_files: string[];
  tests: Array<{ name: string; alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
}

const alertNames = (): string[] =>
  (parseYaml(readFileSync(ALERTS, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string }> }> }).groups.flatMap((g) =>
    g.rules.map((r) => r.alert),
  );

describe('shipped Prometheus files (promtool)', () => {
  it('promtool check rules accepts docker/alerts.yml', () => {
    const result = promtool(['check', 'rules', ALERTS]);
    expect(result.output).toContain(`SUCCESS: ${alertNames().length} rules found`);
    expect(result.status).toBe(0);
  });

  it.each(['prometheus.yml', 'prometheus-swarm.yml'])('promtool check config accepts docker/%s with its rule file', (file) => {
    const text = readFileSync(join(ROOT, 'docker', file), 'utf8');
    expect(promtool(['check', 'config', '--syntax-only', join(ROOT, 'docker', file)]).status).toBe(0);
    // The full check opens the rule files: point the container path at the repository's file.
    expect(text).toContain('/etc/prometheus/alerts.yml');
    const dir = mkdtempSync(join(tmpdir(), 'gleaner-promtool-'));
    writeFileSync(join(dir, file), text.replace('/etc/prometheus/alerts.yml', ALERTS));
    const result = promtool(['check', 'config', join(dir, file)]);
    expect(result.output).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });

  it('promtool test rules passes the alert unit tests', () => {
    const result = promtool(['test', 'rules', ALERT_TESTS]);
    expect(result.output).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });

  it('unit-tests every alert both ways: firing when it should, quiet when it should not', () => {
    const tests = parseYaml(readFileSync(ALERT_TESTS, 'utf8')) as AlertTests;
    const cases = tests.tests.flatMap((t) => t.alert_rule_test);
    const missing: string[] = [];
    for (const name of alertNames()) {
      if (!cases.some((c) => c.alertname === name && c.exp_alerts.length > 0)) missing.push(`${name}: no case where it fires`);
      if (!cases.some((c) => c.alertname === name && c.exp_alerts.length === 0)) missing.push(`${name}: no case where it stays quiet`);
    }
    expect(missing).toEqual([]);
  });

  it('fails the unit tests when an expectation is wrong (the check can fail)', () => {
    const text = readFileSync(ALERT_TESTS, 'utf8')
      .replace('../../docker/alerts.yml', ALERTS)
      .replace("description: '30% of calls", "description: '31% of calls");
    const dir = mkdtempSync(join(tmpdir(), 'gleaner-promtool-'));
    writeFileSync(join(dir, 'alerts.test.yml'), text);
    const result = promtool(['test', 'rules', join(dir, 'alerts.test.yml')]);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('GleanerLlmErrorRatioHigh');
  });

  it("Grafana's scrape interval setting matches the shipped scrape interval ($__rate_interval spans 4 scrapes)", () => {
    const datasource = (
      parseYaml(readFileSync(join(ROOT, 'grafana', 'provisioning', 'datasources', 'prometheus.yaml'), 'utf8')) as {
        datasources: Array<{ jsonData: { timeInterval: string } }>;
      }
    ).datasources[0];
    for (const file of ['prometheus.yml', 'prometheus-swarm.yml']) {
      const config = parseYaml(readFileSync(join(ROOT, 'docker', file), 'utf8')) as { global: { scrape_interval: string } };
      expect([file, config.global.scrape_interval]).toEqual([file, datasource.jsonData.timeInterval]);
    }
  });
});
