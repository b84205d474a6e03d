import { findDates, isoDateKeys } from './date-forms';
import { tokenize } from './text-tokens';

const dates = (text: string) => findDates(tokenize(text), text).map((d) => d.key);

describe('date forms', () => {
  it('reads ISO-like dates with -, / or .', () => {
    expect(dates('on 2024-03-05')).toEqual(['d:2024-03-05']);
    expect(dates('2024/03/05')).toEqual(['d:2024-03-05']);
    expect(dates('2024.3.5')).toEqual(['d:2024-03-05']);
    expect(dates('2024-03/05')).toEqual([]);
  });

  it('reads day-month-year and month-day-year: both readings when either fits', () => {
    expect(dates('05.03.2024').sort()).toEqual(['d:2024-03-05', 'd:2024-05-03']);
    expect(dates('25/12/2024')).toEqual(['d:2024-12-25']);
    expect(dates('12/25/2024')).toEqual(['d:2024-12-25']);
    expect(dates('05/05/2024')).toEqual(['d:2024-05-05']);
  });

  it('reads month names, full and abbreviated, before or after the day, with ordinals', () => {
    expect(dates('March 5, 2024')).toEqual(['d:2024-03-05']);
    expect(dates('Mar. 5th 2024')).toEqual(['d:2024-03-05']);
    expect(dates('5 March 2024')).toEqual(['d:2024-03-05']);
    expect(dates('5th of March, 2024')).toEqual(['d:2024-03-05']);
    expect(dates('SEPT 30 2023')).toEqual(['d:2023-09-30']);
  });

  it('reads German, French and Spanish month names', () => {
    expect(dates('5. März 2024')).toEqual(['d:2024-03-05']);
    expect(dates('1er août 2024')).toEqual(['m:2024-08']); // "1er" is not a day form it reads: only the month
    expect(dates('1 août 2024')).toEqual(['d:2024-08-01']);
    expect(dates('5 de marzo de 2024')).toEqual([]); // "de" after the month is not read
    expect(dates('12 diciembre 2024')).toEqual(['d:2024-12-12']);
  });

  it('reads a month with its year as a month', () => {
    expect(dates('June 2010')).toEqual(['m:2010-06']);
    expect(dates('Published: Juni, 2010')).toEqual(['m:2010-06']);
  });

  it('reads year-month-day with CJK markers', () => {
    expect(dates('2024年3月5日')).toEqual(['d:2024-03-05']);
  });

  it('rejects impossible days and two-digit years', () => {
    expect(dates('31 April 2024')).toEqual([]);
    expect(dates('2023-02-29')).toEqual([]);
    expect(dates('2024-02-29')).toEqual(['d:2024-02-29']);
    expect(dates('05/03/24')).toEqual([]);
    expect(dates('March 32, 2024')).toEqual([]);
  });

  it('takes no word for a month because of the object prototype (constructor, toString)', () => {
    expect(dates('constructor 2024, toString 5 2024, 5 hasOwnProperty 2024')).toEqual([]);
  });

  it('does not join words separated by more than a few characters', () => {
    expect(dates('March ...... 5, 2024')).toEqual([]);
  });

  it('looks an ISO date value up by its day, and the first of a month by its month too', () => {
    expect(isoDateKeys('2024-03-05')).toEqual(['d:2024-03-05']);
    expect(isoDateKeys('2010-06-01')).toEqual(['d:2010-06-01', 'm:2010-06']);
    expect(isoDateKeys('2024-03-05T23:10:00.000Z')).toEqual(['d:2024-03-05']);
    expect(isoDateKeys('March 5')).toBeUndefined();
    expect(isoDateKeys('2024-02-30')).toBeUndefined();
  });
});
