/**
 * A data table is protected from readability's cleaning with everything inside it, but a site draws it inside
 * wrappers of its own (a horizontal scroller, a "responsive" box, a media block) whose class names readability
 * reads as furniture (`overflow-x-scroll`, `table-media`), or whose counts read as one (a pricing table of "Yes"
 * cells has no commas nor paragraphs): a wrapper whose text is the table's is the table, and is kept as it is.
 */
export function wrapsDataTable(text: number, tableText: number): boolean {
  return text > 0 && tableText >= text * WRAPPER_MIN_TABLE_SHARE;
}

/** The share of a wrapper's text its data tables hold (the rest: a caption, a "scroll to see more" hint). */
const WRAPPER_MIN_TABLE_SHARE = 0.9;
