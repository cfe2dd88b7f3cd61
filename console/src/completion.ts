/**
 * TQL keyword completion for the search field: the keywords come from `OPTIONS /api/v3/indicators/tql`
 * (the server's own table, so they are always the ones it accepts); the word being typed is the text
 * after the last space, parenthesis or operator.
 */
export interface TqlKeyword {
  keyword: string
  name?: string
  description?: string
}

/** The word at the end of the text that a keyword could complete, with where it starts. */
export function wordBeingTyped(text: string): { word: string; start: number } {
  const match = /[A-Za-z]*$/.exec(text)!
  const before = text.slice(0, match.index)
  // Inside a quoted string the text is a value, not a keyword.
  const quotes = (before.match(/(?<!\\)"/g) ?? []).length
  if (quotes % 2 === 1) return { word: '', start: text.length }
  return { word: match[0], start: match.index }
}

/** Keywords that start with the word being typed (case-insensitive), at most `max`, the word itself excluded. */
export function completions(text: string, keywords: readonly TqlKeyword[], max = 8): TqlKeyword[] {
  const { word } = wordBeingTyped(text)
  if (word.length < 2) return []
  const lower = word.toLowerCase()
  return keywords
    .filter((k) => k.keyword.toLowerCase().startsWith(lower) && k.keyword.toLowerCase() !== lower)
    .slice(0, max)
}

/** The text with the word being typed replaced by the keyword and a space. */
export function complete(text: string, keyword: string): string {
  const { start } = wordBeingTyped(text)
  return `${text.slice(0, start)}${keyword} `
}
