/**
 * `isIP` of node:net for the browser build, so the console runs the server's own value detection
 * (src/formats/text/values.ts). It answers as Node does (node-net.test.ts holds it to Node's answers):
 * 4 for dotted-decimal IPv4 without leading zeros, 6 for IPv6 (with `::`, an IPv4 tail, a zone), else 0.
 */
const V4_PART = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/
const V6_GROUP = /^[0-9a-f]{1,4}$/i

function isIPv4(text: string): boolean {
  const parts = text.split('.')
  return parts.length === 4 && parts.every((p) => V4_PART.test(p))
}

function isIPv6(text: string): boolean {
  const percent = text.indexOf('%')
  if (percent !== -1) {
    if (!/^[0-9a-zA-Z.:-]+$/.test(text.slice(percent + 1))) return false
    text = text.slice(0, percent)
  }
  const halves = text.split('::')
  if (halves.length > 2) return false
  const groupsOf = (half: string) => (half === '' ? [] : half.split(':'))
  const head = groupsOf(halves[0])
  const tail = halves.length === 2 ? groupsOf(halves[1]) : []
  const all = [...head, ...tail]
  // An IPv4 tail ends the address: after a `::` it must be in the part after it (`0.0.0.0::` is not an address).
  const tailMayBeV4 = halves.length === 1 || tail.length > 0
  let width = 0
  for (let i = 0; i < all.length; i++) {
    const group = all[i]
    if (i === all.length - 1 && tailMayBeV4 && group.includes('.')) {
      if (!isIPv4(group)) return false
      width += 2
    } else if (V6_GROUP.test(group)) width += 1
    else return false
  }
  return halves.length === 2 ? width <= 7 : width === 8
}

export function isIP(text: string): 0 | 4 | 6 {
  if (typeof text !== 'string') return 0
  if (isIPv4(text)) return 4
  if (text.includes(':') && isIPv6(text)) return 6
  return 0
}
