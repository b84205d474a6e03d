import { canonicalNumber, identifierDigits, numberReadings, numberTextReadings, readingOf, roundedReading } from './number-forms';
import { tokenize } from './text-tokens';

/** Readings of a number as written ("1,299.00" → groups and separators). */
function read(text: string): string[] {
  const groups = text.split(/[^0-9]/);
  const seps = text.replace(/[0-9]+/g, '').split('');
  return numberReadings(groups, seps);
}

describe('number formats', () => {
  it('reads thousands separators and decimal marks of both conventions as one number', () => {
    expect(read('1,299.00')).toEqual(['1299']);
    expect(read('1.299,00')).toEqual(['1299']);
    expect(read('1 299,00')).toEqual(['1299']);
    expect(read('1\u00a0299,50')).toEqual(['1299.5']);
    expect(read("1'299.95")).toEqual(['1299.95']);
    expect(read('1,299,000')).toEqual(['1299000']);
    expect(read('1.299.000,5')).toEqual(['1299000.5']);
  });

  it('gives both readings when one separator before three digits could be either', () => {
    expect(read('1,299').sort()).toEqual(['1.299', '1299']);
    expect(read('1.299').sort()).toEqual(['1.299', '1299']);
  });

  it('reads a separator before fewer or more than three digits as a decimal mark only', () => {
    expect(read('12,5')).toEqual(['12.5']);
    expect(read('19.99')).toEqual(['19.99']);
    expect(read('3.14159')).toEqual(['3.14159']);
  });

  it('reads nothing from inconsistent groups', () => {
    expect(read('1.2.3')).toEqual([]);
    expect(read('12,34,56')).toEqual([]);
  });

  it('writes readings canonically: no leading or trailing zeros, no sign', () => {
    expect(canonicalNumber('007', '500')).toBe('7.5');
    expect(canonicalNumber('0', '')).toBe('0');
    expect(canonicalNumber('000', '000')).toBe('0');
    expect(readingOf(-12.5)).toBe('12.5');
    expect(readingOf(1299)).toBe('1299');
    expect(readingOf(1e21)).toBe('1000000000000000000000');
    expect(readingOf(Number.NaN)).toBeUndefined();
  });

  it('rounds half up for integer fields (the model may round 1,299.50 to 1300)', () => {
    expect(roundedReading('1299.5')).toBe('1300');
    expect(roundedReading('1299.49')).toBe('1299');
    expect(roundedReading('12')).toBe('12');
    expect(roundedReading('99999999999999999999.9')).toBe('100000000000000000000');
  });

  it('reads a text that is one number with currency symbols or codes around it', () => {
    const readings = (text: string) => numberTextReadings(tokenize(text), text);
    expect(readings('$1,299.00')).toEqual(['1299']);
    expect(readings('1.299,00 €')).toEqual(['1299']);
    expect(readings('USD 12')).toEqual(['12']);
    expect(readings('12 euros')).toEqual(['12']);
    expect(readings('12 apples')).toBeUndefined();
    expect(readings('1, 2')).toBeUndefined();
  });

  it('reads identifiers written in digit groups as their digits (at least five)', () => {
    expect(identifierDigits('978-0-316-12558-1')).toBe('9780316125581');
    expect(identifierDigits('+1 (555) 123-4567')).toBe('15551234567');
    expect(identifierDigits('12-34')).toBeUndefined();
    expect(identifierDigits('ISBN 978')).toBeUndefined();
  });
});
