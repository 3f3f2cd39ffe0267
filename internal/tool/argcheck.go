package tool

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/tether-dev/tether/internal/jsonscan"
)

// argCheck checks raw arguments against a tool's schema in one pass over
// the JSON, without decoding it: what lets decode skip the validator,
// which wants the arguments decoded into maps first. It understands the
// keywords schema inference and Tune produce (type, properties, required,
// additionalProperties, items, enum of strings, minimum, maximum,
// minLength, maxLength, minItems, maxItems); a schema with any other is
// not compiled, and its tool is always validated the slow way.
//
// It is only ever trusted to say yes: arguments it refuses go to the
// validator, which decides, and says what is wrong in its own words.
type argCheck struct{ root *argNode }

// Instance types, as a set.
const (
	tNull = 1 << iota
	tBool
	tString
	tInteger // a number with no fractional part
	tNumber  // any other number
	tArray
	tObject
)

type argNode struct {
	types              uint8 // zero: any
	enum               []string
	hasEnum            bool
	minimum, maximum   *float64
	minLength          int // -1: none
	maxLength          int
	minItems, maxItems int
	items              *argNode
	props              map[string]*argNode
	required           map[string]uint // bit of each required property
	allRequired        uint64
	closed             bool // additionalProperties: false
}

// anyValue accepts every JSON value.
var anyValue = &argNode{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}

// compileArgCheck compiles a schema, given as JSON; nil when it uses a
// keyword argCheck does not understand.
func compileArgCheck(schema []byte) *argCheck {
	var m map[string]any
	if json.Unmarshal(schema, &m) != nil {
		return nil
	}
	root, ok := compileNode(m)
	if !ok {
		return nil
	}
	return &argCheck{root: root}
}

func compileNode(m map[string]any) (*argNode, bool) {
	n := &argNode{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	for k, v := range m {
		switch k {
		case "description", "title", "default", "examples", "$comment":
		case "type":
			switch v := v.(type) {
			case string:
				if !n.addType(v) {
					return nil, false
				}
			case []any:
				for _, t := range v {
					if s, ok := t.(string); !ok || !n.addType(s) {
						return nil, false
					}
				}
			default:
				return nil, false
			}
		case "enum":
			list, ok := v.([]any)
			if !ok {
				return nil, false
			}
			n.hasEnum = true
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					return nil, false
				}
				n.enum = append(n.enum, s)
			}
		case "minimum", "maximum":
			f, ok := v.(float64)
			if !ok {
				return nil, false
			}
			if k == "minimum" {
				n.minimum = &f
			} else {
				n.maximum = &f
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			f, ok := v.(float64)
			if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
				return nil, false
			}
			switch k {
			case "minLength":
				n.minLength = int(f)
			case "maxLength":
				n.maxLength = int(f)
			case "minItems":
				n.minItems = int(f)
			default:
				n.maxItems = int(f)
			}
		case "items":
			var ok bool
			if n.items, ok = compileSub(v); !ok {
				return nil, false
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			n.props = map[string]*argNode{}
			for name, p := range props {
				if n.props[name], ok = compileSub(p); !ok {
					return nil, false
				}
			}
		case "required":
			list, ok := v.([]any)
			if !ok || len(list) > 64 {
				return nil, false
			}
			n.required = map[string]uint{}
			for _, r := range list {
				s, ok := r.(string)
				if !ok {
					return nil, false
				}
				if _, dup := n.required[s]; !dup {
					n.required[s] = uint(len(n.required))
				}
			}
			n.allRequired = 1<<len(n.required) - 1
		case "additionalProperties":
			switch v {
			case false:
				n.closed = true
			case true:
			default:
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return n, true
}

// compileSub compiles a subschema: an object, or true (anything goes).
func compileSub(v any) (*argNode, bool) {
	switch v := v.(type) {
	case bool:
		return anyValue, v
	case map[string]any:
		return compileNode(v)
	}
	return nil, false
}

func (n *argNode) addType(t string) bool {
	switch t {
	case "null":
		n.types |= tNull
	case "boolean":
		n.types |= tBool
	case "string":
		n.types |= tString
	case "integer":
		n.types |= tInteger
	case "number":
		n.types |= tInteger | tNumber // "number" takes integers too
	case "array":
		n.types |= tArray
	case "object":
		n.types |= tObject
	default:
		return false
	}
	return true
}

func (n *argNode) allows(t uint8) bool { return n.types == 0 || n.types&t != 0 }

// maxArgDepth is encoding/json's own nesting limit.
const maxArgDepth = 10000

// ok reports whether raw, the whole of it, is JSON the schema accepts.
func (c *argCheck) ok(raw []byte) bool {
	s := jsonscan.Scanner{B: raw, MaxDepth: maxArgDepth}
	if !c.root.check(&s) {
		return false
	}
	s.Space()
	return s.Fault == jsonscan.OK && s.I == len(raw)
}

func (n *argNode) check(s *jsonscan.Scanner) bool {
	if n == anyValue {
		return s.Value()
	}
	if !s.Count() {
		return false
	}
	switch c := s.Peek(); c {
	case '"':
		start := s.I
		if !n.allows(tString) {
			return false
		}
		if n.hasEnum || n.minLength >= 0 || n.maxLength >= 0 {
			if !s.String() {
				return false
			}
			str, ok := jsonscan.Unquote(s.B[start:s.I])
			if !ok {
				return false
			}
			return n.checkString(str)
		}
		// A string argument is decoded next, by jsonscan.Unquote, which
		// refuses what is not valid JSON; here only its end is found. A
		// file's content is most of a write's bytes, with an escape every
		// few dozen of them, where a checking scan slows down: checking it
		// here too cost a tenth of a 1 MiB write.
		return s.SkipString()
	case '{':
		return n.allows(tObject) && n.checkObject(s)
	case '[':
		return n.allows(tArray) && n.checkArray(s)
	case 't':
		return s.Literal("true") && n.allows(tBool) && !n.hasEnum
	case 'f':
		return s.Literal("false") && n.allows(tBool) && !n.hasEnum
	case 'n':
		return s.Literal("null") && n.allows(tNull) && !n.hasEnum
	default:
		if n.hasEnum { // its values are strings
			return false
		}
		start := s.I
		if !s.Number() {
			return false
		}
		f, err := strconv.ParseFloat(string(s.B[start:s.I]), 64)
		if err != nil {
			return false // out of range: the slow way says how
		}
		t := uint8(tNumber)
		if _, frac := math.Modf(f); frac == 0 {
			t = tInteger
		}
		return n.allows(t) && (n.minimum == nil || f >= *n.minimum) && (n.maximum == nil || f <= *n.maximum)
	}
}

func (n *argNode) checkString(str string) bool {
	if n.hasEnum {
		found := false
		for _, e := range n.enum {
			if e == str {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if n.minLength >= 0 || n.maxLength >= 0 {
		runes := utf8.RuneCountInString(str)
		if (n.minLength >= 0 && runes < n.minLength) || (n.maxLength >= 0 && runes > n.maxLength) {
			return false
		}
	}
	return true
}

func (n *argNode) checkObject(s *jsonscan.Scanner) bool {
	if n.hasEnum || !s.Enter() {
		return false
	}
	s.I++ // '{'
	var seen uint64
	if s.Peek() == '}' {
		s.I++
		s.Leave()
		return seen == n.allRequired
	}
	for {
		if s.Peek() != '"' {
			return s.Fail(jsonscan.Syntax)
		}
		k := s.I
		if !s.String() {
			return false
		}
		key := s.B[k+1 : s.I-1]
		if hasBackslash(key) { // rare: decoded
			decoded, ok := jsonscan.Unquote(s.B[k:s.I])
			if !ok {
				return false
			}
			key = []byte(decoded)
		}
		if !s.Colon() {
			return false
		}
		child := n.props[string(key)]
		if child == nil {
			if n.closed {
				return false
			}
			child = anyValue
		}
		if bit, ok := n.required[string(key)]; ok {
			seen |= 1 << bit
		}
		if !child.check(s) {
			return false
		}
		switch more, ok := s.Next('}'); {
		case !ok:
			return false
		case !more:
			s.Leave()
			return seen == n.allRequired
		}
	}
}

func (n *argNode) checkArray(s *jsonscan.Scanner) bool {
	if n.hasEnum || !s.Enter() {
		return false
	}
	s.I++ // '['
	items := n.items
	if items == nil {
		items = anyValue
	}
	count := 0
	if s.Peek() == ']' {
		s.I++
	} else {
		for {
			if !items.check(s) {
				return false
			}
			count++
			more, ok := s.Next(']')
			if !ok {
				return false
			}
			if !more {
				break
			}
		}
	}
	s.Leave()
	return (n.minItems < 0 || count >= n.minItems) && (n.maxItems < 0 || count <= n.maxItems)
}

func hasBackslash(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}
