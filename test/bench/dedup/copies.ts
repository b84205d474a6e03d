/**
 * bench:dedup's generated copies of a corpus page and their tally, one implementation for the SWDE and the WCXB
 * sections (swde-merges.ts, wcxb-merges.ts). Each page gets three copies, as a site makes them under other
 * addresses: `date` (the first four digits of the HTML plus one: a changed timestamp), `session_line` (a "last
 * updated … session …" line added) and `no_navigation` (the page without its nav and header). A copy is found when
 * the index would take it for the page's duplicate: it shares an LSH band, is NEAR_SIMILARITY alike, and the
 * record-value guard does not take it for another record (libs/dedup/src/record-values.ts).
 *
 * What is a copy (docs/dedup.md "Measured", issue 45 "Never merge different records"): the same record under another
 * address, with at most its furniture or a timestamp changed. The `date` change hits a shown number that is not a
 * year on a few pages (a PO box, an offer code, a SKU in a table): that page shows another value, which is the point
 * of the record, so that variant is not a copy. It is tallied apart (`value_changed`): kept apart is right, merged is
 * a false merge of a generated pair, listed by address. A changed digit run the text does not show as a number (an
 * HTML entity's code, a markup attribute) changes no value: that variant stays a copy.
 */
import { bandsOf, fingerprintOf, NEAR_SIMILARITY, similarity } from '../../../libs/dedup/src/fingerprint';
import { differentRecords, recordValuesOf, type RecordValues } from '../../../libs/dedup/src/record-values';

export const COPY_KINDS = ['date', 'session_line', 'no_navigation'] as const;
export type CopyKind = (typeof COPY_KINDS)[number];

export interface Variant {
  kind: CopyKind;
  html: string;
  /** `date` only: the four digits changed and what they became. */
  changed?: { from: string; to: string };
}

/** The page's three generated copies (file comment). */
export function variantsOf(html: string): Variant[] {
  let changed: Variant['changed'];
  const date = html.replace(/\d{4}/, (m) => {
    changed = { from: m, to: String((Number(m) + 1) % 10000) };
    return changed.to;
  });
  return [
    { kind: 'date', html: date, changed },
    { kind: 'session_line', html: html.replace(/<body([^>]*)>/i, '<body$1><p>Last updated 2026-12-02 07:00 UTC. Session 8f3a9c.</p>') },
    { kind: 'no_navigation', html: html.replace(/<(nav|header)[\s\S]*?<\/\1>/gi, '') },
  ];
}

const occurrences = (text: string, digits: string) => text.split(digits).length - 1;

/**
 * Whether a variant changed a value the page shows (not a copy): a `date` change whose new digits the copy's text
 * shows more often than the page's text does, and that is not a year (19xx, 20xx).
 */
export function changesShownValue(variant: Variant, text: string, copyText: string): boolean {
  const c = variant.changed;
  if (variant.kind !== 'date' || !c || /^(19|20)\d\d$/.test(c.from)) return false;
  return occurrences(copyText, c.to) > occurrences(text, c.to);
}

/** A corpus page as the tally needs it: its fingerprint, its record values and its text (its `full` markdown). */
export interface Original {
  url: string;
  fp: string;
  values: RecordValues;
  text: string;
}

const byKind = (): Record<CopyKind, number> => ({ date: 0, session_line: 0, no_navigation: 0 });

/** The generated copies of a section's pages: found, missed (by kind), and the value-changing variants apart. */
export class CopyTally {
  private variants = 0;
  private found = 0;
  private foundWithoutGuard = 0;
  private readonly missedBy = byKind();
  private readonly guardMissedBy = byKind();
  private readonly valueChanged = { variants: 0, kept_apart_by_fingerprint: 0, kept_apart_by_guard: 0, merged: [] as string[] };
  /** Each copy's similarity as the index sees it (0 when no band is shared or the guard keeps it apart). */
  readonly similarities: number[] = [];

  /** One variant of `original`, converted to `copyText` as the index would read it. */
  add(original: Original, variant: Variant, copyText: string): void {
    const copy = fingerprintOf(copyText);
    const bands = new Set(bandsOf(original.fp));
    const alike = copy && bandsOf(copy).some((b) => bands.has(b)) ? similarity(original.fp, copy) : 0;
    const near = alike >= NEAR_SIMILARITY;
    // The guard's verdict only matters for a near candidate (the index asks it of those alone).
    const guarded = near && differentRecords(original.values, recordValuesOf(copyText));
    if (changesShownValue(variant, original.text, copyText)) {
      this.valueChanged.variants++;
      if (!near) this.valueChanged.kept_apart_by_fingerprint++;
      else if (guarded) this.valueChanged.kept_apart_by_guard++;
      else this.valueChanged.merged.push(original.url);
      return;
    }
    this.variants++;
    this.similarities.push(guarded ? 0 : alike);
    if (near) this.foundWithoutGuard++;
    if (guarded) this.guardMissedBy[variant.kind]++;
    if (near && !guarded) this.found++;
    else this.missedBy[variant.kind]++;
  }

  /** The section's `copies` entry of bench-results/dedup.json. */
  report() {
    return {
      variants: this.variants,
      found: this.found,
      detection_rate: this.found / this.variants,
      missed_by_kind: this.missedBy,
      missed_by_guard_by_kind: this.guardMissedBy,
      without_guard: { found: this.foundWithoutGuard, detection_rate: this.foundWithoutGuard / this.variants },
      /** `date` variants that changed a shown value (not a year): not copies; `merged` are false merges of generated pairs. */
      value_changed: { ...this.valueChanged, false_merges: this.valueChanged.merged.length },
    };
  }
}
