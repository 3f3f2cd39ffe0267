package memory

import (
	"fmt"
	"strings"
)

// MaxNameLen is the longest memory name, in bytes (names are ASCII).
const MaxNameLen = 64

// NameRule says in words what a memory name may be.
const NameRule = "a memory name is a short slug: 1 to 64 lowercase ASCII letters, digits, '-', '_' and '.', starting and ending with a letter or digit, with no '..', like build-cache or go1.22-notes"

// NameError is a name that is not a valid memory name.
type NameError struct {
	Name   string
	Reason string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("invalid memory name %q: %s", e.Name, e.Reason)
}

// reserved are device names Windows will not let a file be called, with
// any extension.
var reserved = map[string]bool{
	"con": true, "prn": true, "aux": true, "nul": true,
	"com1": true, "com2": true, "com3": true, "com4": true, "com5": true, "com6": true, "com7": true, "com8": true, "com9": true,
	"lpt1": true, "lpt2": true, "lpt3": true, "lpt4": true, "lpt5": true, "lpt6": true, "lpt7": true, "lpt8": true, "lpt9": true,
}

// CheckName validates a memory name and returns it in its stored form: a
// trailing ".md" (the file's extension) is dropped, nothing else is
// changed. Anything that could name a path outside the memory folder, a
// hidden file, or a file some system cannot hold is refused.
func CheckName(name string) (string, error) {
	orig := name
	name = strings.TrimSuffix(name, ".md")
	fail := func(reason string) (string, error) { return "", &NameError{Name: orig, Reason: reason} }
	switch {
	case name == "":
		return fail("it is empty")
	case len(name) > MaxNameLen:
		return fail(fmt.Sprintf("it is %d bytes long, over %d", len(name), MaxNameLen))
	case strings.ContainsAny(name, `/\`):
		return fail("it contains a path separator")
	case strings.Contains(name, ".."):
		return fail("it contains '..'")
	case name[0] == '.':
		return fail("it starts with '.', which would make a hidden file")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' || c == '_' || c == '.':
			if i == 0 || i == len(name)-1 {
				return fail(fmt.Sprintf("it starts or ends with %q", c))
			}
		case c >= 0x80:
			return fail("it contains a non-ASCII character")
		case c >= 'A' && c <= 'Z':
			return fail("it has upper-case letters; use lower case (" + strings.ToLower(name) + ")")
		default:
			return fail(fmt.Sprintf("it contains %q", rune(c)))
		}
	}
	if base, _, _ := strings.Cut(name, "."); reserved[base] {
		return fail("it is a device name on Windows")
	}
	return name, nil
}
