import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOOLEAN_FALSE_WORDS, BOOLEAN_TRUE_WORDS, parseBooleanSetting } from './boolean-setting';
import { ConfigError, loadConfig } from './config';

const tmp = () => mkdtempSync(join(tmpdir(), 'gleaner-bool-'));

describe('parseBooleanSetting (docs/operations.md "Boolean settings")', () => {
  it.each([
    ['true', true],
    ['TRUE', true],
    ['True', true],
    [' yes ', true],
    ['YES', true],
    ['1', true],
    ['on', true],
    ['ON', true],
    ['false', false],
    ['FALSE', false],
    ['No', false],
    ['0', false],
    ['off', false],
    ['Off', false],
  ])('reads %j as %s', (text, expected) => {
    expect(parseBooleanSetting(text)).toBe(expected);
  });

  it.each(['', 'maybe', 'tru', '2', 'y', 'enabled'])('refuses %j', (text) => {
    expect(parseBooleanSetting(text)).toBeUndefined();
  });

  it('has disjoint word lists', () => {
    expect(BOOLEAN_TRUE_WORDS.filter((w) => (BOOLEAN_FALSE_WORDS as readonly string[]).includes(w))).toEqual([]);
  });
});

describe('every boolean setting goes through it', () => {
  it.each([
    ['GLEANER_ALLOW_PRIVATE_NETWORKS', 'allowPrivateNetworks', 'TRUE', true],
    ['GLEANER_ALLOW_PRIVATE_NETWORKS', 'allowPrivateNetworks', 'On', true],
    ['GLEANER_BROWSER_ENABLED', 'browserEnabled', 'FALSE', false],
    ['GLEANER_BROWSER_ENABLED', 'browserEnabled', 'off', false],
    ['GLEANER_MONITOR_SCHEDULER', 'monitorScheduler', 'No', false],
  ] as const)('%s=%s', (name, field, value, expected) => {
    expect(loadConfig({ DATA_DIR: tmp(), [name]: value })[field]).toBe(expected);
  });

  it('names the words it takes when a value is refused', () => {
    let error: unknown;
    try {
      loadConfig({ DATA_DIR: tmp(), GLEANER_BROWSER_ENABLED: 'enabled' });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems.join('\n')).toMatch(
      /GLEANER_BROWSER_ENABLED.*true, false, yes, no, on, off, 1 or 0 \(any case\)/,
    );
  });
});
