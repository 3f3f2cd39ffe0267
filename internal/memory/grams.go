package memory

// grams is a Bloom filter of the three-byte pieces of a memory's
// lower-cased fields. A word with a piece the filter lacks is surely not
// in the memory, so most memories that do not match a query are passed
// over without reading their text.
type grams [gramWords]uint64

const (
	gramBits  = 13 // 8192 bits: about 1 KB a memory
	gramWords = 1 << gramBits / 64
)

func gramHash(a, b, c byte) uint32 {
	x := uint32(a)<<16 | uint32(b)<<8 | uint32(c)
	return (x * 2654435761) >> (32 - gramBits)
}

func (g *grams) add(s string) {
	for i := 0; i+3 <= len(s); i++ {
		h := gramHash(s[i], s[i+1], s[i+2])
		g[h/64] |= 1 << (h % 64)
	}
}

// mayHold reports whether s may occur in one of the fields; a string
// shorter than three bytes always may.
func (g *grams) mayHold(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		h := gramHash(s[i], s[i+1], s[i+2])
		if g[h/64]&(1<<(h%64)) == 0 {
			return false
		}
	}
	return true
}
