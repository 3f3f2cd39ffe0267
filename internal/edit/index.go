package edit

import "bytes"

// index is bytes.Index tuned for source text. bytes.Index hunts for the
// needle's first byte, which in code is often a common letter or a tab, so
// it stops every few bytes. index hunts for the needle's rarest byte
// instead (by a fixed table of how common bytes are in source text), which
// the vectorised IndexByte skips to at memory speed. Where that byte turns
// out to be common in this text after all, it hands over to bytes.Index,
// whose Rabin-Karp fallback keeps the worst case linear.
func index(hay, needle []byte) int {
	n := len(needle)
	if n < 2 || len(hay) < n {
		return bytes.Index(hay, needle)
	}
	r := rarestByte(needle)
	c := needle[r]
	last := len(hay) - n // the last possible start
	fails := 0
	for p := 0; p <= last; {
		i := bytes.IndexByte(hay[p+r:last+r+1], c)
		if i < 0 {
			return -1
		}
		s := p + i
		if bytes.Equal(hay[s:s+n], needle) {
			return s
		}
		p = s + 1
		// Allow about one miss per 64 bytes scanned before giving up on
		// the rare byte.
		if fails++; fails > 16+p>>6 {
			if j := bytes.Index(hay[p:], needle); j >= 0 {
				return p + j
			}
			return -1
		}
	}
	return -1
}

// rarestByte is the position in needle of its least common byte.
func rarestByte(needle []byte) int {
	best := 0
	for i, b := range needle {
		if byteRank[b] < byteRank[needle[best]] {
			best = i
		}
	}
	return best
}

// byteRank says roughly how common each byte is in source code and prose,
// from 0 (rare) to 255 (everywhere). Only the order matters.
var byteRank = func() [256]uint8 {
	var t [256]uint8
	for b := range t {
		switch {
		case b >= 0x80:
			t[b] = 40 // UTF-8 sequences: common in some files, absent in most
		case b < 0x20:
			t[b] = 5
		default:
			t[b] = 60 // punctuation not listed below
		}
	}
	set := func(rank uint8, chars string) {
		for i := 0; i < len(chars); i++ {
			t[chars[i]] = rank
		}
	}
	set(255, " ")
	set(250, "e\t\n")
	set(240, "tarn")
	set(230, "iosl")
	set(220, "cdu\r")
	set(210, "mpfh")
	set(200, "gb.(),")
	set(190, "_=;\"yvw")
	set(180, "k:/-{}")
	set(170, "01xT")
	set(160, "ESRANIC*'[]")
	set(150, "23456789jLOD>PF<M")
	set(140, "qzBGU#&!|+HW")
	set(120, "VKYXJQZ%$@\\?^~`")
	return t
}()
