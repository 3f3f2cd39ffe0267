package jsonscan

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Fields decodes JSON objects that a scan has checked into one struct
// type, as encoding/json would, in one pass: a string member is unquoted
// once, a json.RawMessage member is the member's own bytes (not a copy),
// a number or a boolean is parsed in place, and any other member is
// handed to encoding/json alone. The struct's fields are read by
// reflection, so a field added to the type is decoded without more code.
//
// What it does is what encoding/json does, or nothing: where it is not
// sure (a value that does not fit its field, a key that names a field
// only when case is ignored, which encoding/json accepts), Decode says
// so, and the caller decodes the whole with encoding/json, which also
// says what is wrong. The saving is encoding/json's own checking pass
// over the text and its second pass over every json.RawMessage, which
// for a message holding a file's content are most of its cost.
type Fields struct {
	byName map[string]field
	names  []string // every field's JSON name, for the case check
}

type field struct {
	index int
	kind  fieldKind
}

type fieldKind uint8

const (
	other  fieldKind = iota // handed to encoding/json
	str                     // a plain string
	raw                     // a json.RawMessage
	intNum                  // a signed integer
	boolean
)

var (
	rawMessage      = reflect.TypeFor[json.RawMessage]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	compiled        sync.Map // reflect.Type → *Fields, or nil
)

// For returns the decoder of struct type t, made once and kept; nil when
// t is not a struct whose fields decode plainly (an embedded struct, a
// ",string" option, or a struct that decodes itself leave it to
// encoding/json whole).
func For(t reflect.Type) *Fields {
	if f, ok := compiled.Load(t); ok {
		return f.(*Fields)
	}
	f := compile(t)
	compiled.Store(t, f)
	return f
}

func compile(t reflect.Type) *Fields {
	if t.Kind() != reflect.Struct || decodesItself(t) {
		return nil
	}
	f := &Fields{byName: map[string]field{}}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",string,") {
			return nil
		}
		if name == "" {
			name = sf.Name
		}
		if _, dup := f.byName[name]; dup {
			return nil // encoding/json's rules for clashing names are its own
		}
		kind := other
		switch {
		case sf.Type == rawMessage:
			kind = raw
		case decodesItself(sf.Type):
		case sf.Type.Kind() == reflect.String:
			kind = str
		case sf.Type.Kind() == reflect.Bool:
			kind = boolean
		case sf.Type.Kind() >= reflect.Int && sf.Type.Kind() <= reflect.Int64:
			kind = intNum
		}
		f.byName[name] = field{index: i, kind: kind}
		f.names = append(f.names, name)
	}
	return f
}

func decodesItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler)
}

// Decode sets the fields of *dst, a pointer to the struct For was given,
// from rawObj, a JSON object a scan (Top, or a Scanner) has checked. It
// reports false when it cannot be sure to decode as encoding/json would;
// dst may then be partly set, and the caller should zero it and decode
// rawObj with encoding/json. A json.RawMessage field holds a part of
// rawObj, which must not change while it is in use.
func (f *Fields) Decode(rawObj []byte, dst any) bool {
	v := reflect.ValueOf(dst).Elem()
	ok := true
	isObject := Members(rawObj, func(key, value []byte) {
		if !ok {
			return
		}
		name := key[1 : len(key)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			decoded, _ := Unquote(key)
			name = []byte(decoded)
		}
		fd, known := f.byName[string(name)]
		if !known {
			// encoding/json ignores an unknown key, but matches one that
			// differs from a field's name only in case.
			for _, n := range f.names {
				if strings.EqualFold(n, string(name)) {
					ok = false
					return
				}
			}
			return
		}
		ok = fd.set(v.Field(fd.index), value)
	})
	return ok && isObject
}

// set decodes one member's value into fv.
func (fd field) set(fv reflect.Value, value []byte) bool {
	isNull := string(value) == "null"
	switch fd.kind {
	case raw:
		fv.SetBytes(value)
		return true
	case str:
		if isNull {
			return true // encoding/json leaves the field as it was
		}
		if value[0] != '"' {
			return false
		}
		s, ok := Unquote(value)
		if ok {
			fv.SetString(s)
		}
		return ok
	case boolean:
		switch string(value) {
		case "true", "false":
			fv.SetBool(value[0] == 't')
			return true
		}
		return isNull
	case intNum:
		if isNull {
			return true
		}
		n, err := strconv.ParseInt(string(value), 10, fv.Type().Bits())
		if err != nil {
			return false
		}
		fv.SetInt(n)
		return true
	}
	return json.Unmarshal(value, fv.Addr().Interface()) == nil
}
