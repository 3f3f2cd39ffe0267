package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tether-dev/tether/protocol"
)

// kinds has a field of every kind Fields tells apart, and of some it
// leaves to encoding/json.
type kinds struct {
	S     string          `json:"s"`
	Named protocol.Mode   `json:"named,omitempty"`
	I     int             `json:"i"`
	I8    int8            `json:"i8,omitempty"`
	I32   int32           `json:"i32"`
	U     uint16          `json:"u,omitempty"`
	F     float64         `json:"f"`
	B     bool            `json:"b"`
	Raw   json.RawMessage `json:"raw"`
	List  []string        `json:"list"`
	Ptr   *string         `json:"ptr,omitempty"`
	Inner protocol.Hunk   `json:"inner"`
	Map   map[string]int  `json:"map"`
	When  time.Time       `json:"when"`
	Any   any             `json:"any"`
	NoTag string
	Skip  string `json:"-"`
	Dash  string `json:"-,"`
	skip  string
}

// decodedTypes are the types the differential tests decode: every params
// type of a method a client sends (those the daemon decodes with Fields),
// and kinds.
func decodedTypes() []reflect.Type {
	types := []reflect.Type{reflect.TypeFor[kinds]()}
	seen := map[reflect.Type]bool{}
	for _, m := range protocol.Methods {
		if t := m.Params(); m.Direction() != protocol.DaemonToClient && !seen[t] {
			seen[t] = true
			types = append(types, t)
		}
	}
	return types
}

// Fields decodes what encoding/json decodes, or declines: for every type,
// on thousands of objects built from the type's own fields (so a field
// added to a type is covered at once), right and wrong values alike.
func TestFieldsAgreesWithEncodingJSON(t *testing.T) {
	for _, typ := range decodedTypes() {
		f := For(typ)
		if f == nil {
			if typ.Kind() == reflect.Struct && typ.NumField() > 0 {
				t.Errorf("%v: Fields does not decode it", typ)
			}
			continue
		}
		r := rand.New(rand.NewPCG(1, uint64(typ.NumField())))
		accepted := 0
		const n = 3000
		for range n {
			in := genObject(r, typ, 0, r.IntN(2) == 0)
			if agree(t, typ, in) {
				accepted++
			}
		}
		// Most objects are decoded here, not handed to encoding/json: the
		// agreement above is about something.
		if accepted < n/3 {
			t.Errorf("%v: only %d of %d objects decoded", typ, accepted, n)
		}
		t.Logf("%v: %d of %d objects decoded and compared", typ, accepted, n)
	}
}

func FuzzFieldsAgreesWithEncodingJSON(f *testing.F) {
	r := rand.New(rand.NewPCG(2, 3))
	types := decodedTypes()
	for _, typ := range types {
		for range 4 {
			f.Add(genObject(r, typ, 0, r.IntN(2) == 0))
		}
	}
	f.Add([]byte(`{"name":"a","Name":"b"}`))
	f.Add([]byte(`{"n\u0061me":"x","arguments":null,"tokenBudget":-0}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		if top, fault := Top(in, 0, 0, nil); fault != OK || top != '{' {
			return
		}
		for _, typ := range types {
			if For(typ) != nil {
				agree(t, typ, in)
			}
		}
	})
}

// agree decodes in both ways and fails the test if Fields decoded it to
// anything else than encoding/json; it reports whether Fields decoded it.
func agree(t *testing.T, typ reflect.Type, in []byte) bool {
	t.Helper()
	if _, fault := Top(in, 0, 0, nil); fault != OK {
		t.Fatalf("the generator wrote JSON that does not scan: %s", in)
	}
	got := reflect.New(typ)
	if !For(typ).Decode(in, got.Interface()) {
		return false
	}
	want := reflect.New(typ)
	if err := json.Unmarshal(in, want.Interface()); err != nil {
		t.Fatalf("%v: Fields decoded %s, which encoding/json refuses: %v", typ, in, err)
	}
	trimRaw(want.Elem())
	if !reflect.DeepEqual(got.Elem().Interface(), want.Elem().Interface()) {
		t.Fatalf("%v: %s decodes to\n%#v\nencoding/json:\n%#v", typ, in, got.Elem().Interface(), want.Elem().Interface())
	}
	return true
}

// trimRaw trims the white space encoding/json keeps around a
// json.RawMessage field's value; Fields gives the value alone.
func trimRaw(v reflect.Value) {
	for i := range v.NumField() {
		if fv := v.Field(i); fv.Type() == rawMessage && fv.CanSet() && fv.Len() > 0 {
			fv.SetBytes(bytes.TrimSpace(fv.Bytes()))
		}
	}
}

// genObject writes a JSON object for struct type t: most of its fields,
// in any order, some twice, some with their names escaped, and unknown
// members; when noisy, one of its fields may have its name in another
// case, or a value that does not fit.
func genObject(r *rand.Rand, t reflect.Type, depth int, noisy bool) []byte {
	var names []string
	var types []reflect.Type
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" && sf.Tag.Get("json") == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		names = append(names, name)
		types = append(types, sf.Type)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	members := 0
	member := func(key string, value []byte) {
		if members > 0 {
			b.WriteByte(',')
		}
		members++
		b.WriteString(space(r))
		b.WriteString(key)
		b.WriteString(space(r) + ":" + space(r))
		b.Write(value)
		b.WriteString(space(r))
	}
	bad := -1 // when noisy, the one member that may not fit
	if noisy && len(names) > 0 {
		bad = r.IntN(len(names))
	}
	for _, i := range r.Perm(len(names)) {
		if r.IntN(5) == 0 && i != bad {
			continue // absent
		}
		for range 1 + r.IntN(8)/7 { // now and then twice
			member(key(r, names[i], i == bad), genValue(r, types[i], depth+1, i == bad))
		}
	}
	if r.IntN(4) == 0 {
		member(strconv.Quote("unknown"+strconv.Itoa(r.IntN(3))), genValue(r, reflect.TypeFor[any](), depth+1, noisy))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// key writes a member's name: as it is, mostly; or with a letter
// escaped; or, when noisy, in another case.
func key(r *rand.Rand, name string, noisy bool) string {
	switch r.IntN(8) {
	case 0:
		if noisy {
			return strconv.Quote(strings.ToUpper(name))
		}
	case 1:
		if name != "" {
			return `"\u00` + fmt.Sprintf("%02x", name[0]) + name[1:] + `"`
		}
	}
	return strconv.Quote(name)
}

func space(r *rand.Rand) string {
	if r.IntN(6) == 0 {
		return []string{" ", "\n", "\t ", "\r\n  "}[r.IntN(4)]
	}
	return ""
}

// genValue writes a value for a field of type t: one that fits, or, when
// noisy, now and then any value.
func genValue(r *rand.Rand, t reflect.Type, depth int, noisy bool) []byte {
	if noisy && r.IntN(4) == 0 || depth > 10 {
		return wrongValue(r)
	}
	if t == rawMessage || t.Kind() == reflect.Interface {
		return wrongValue(r) // any JSON fits
	}
	if t == reflect.TypeFor[time.Time]() {
		return []byte(`"2026-12-0` + strconv.Itoa(1+r.IntN(9)) + `T10:00:00Z"`)
	}
	switch t.Kind() {
	case reflect.String:
		return genString(r)
	case reflect.Bool:
		return []byte(strconv.FormatBool(r.IntN(2) == 0))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if noisy && r.IntN(3) == 0 { // out of range, or not an integer
			return []byte([]string{"128", "-129", "2147483648", "9223372036854775808", "1.5", "1e2", "-1E+1", "0.0"}[r.IntN(8)])
		}
		fits := []string{"0", "-0", "7", "-12", "127", "-128"}
		if t.Bits() >= 32 {
			fits = append(fits, "2147483647", "-2147483648")
		}
		if t.Bits() == 64 {
			fits = append(fits, "9223372036854775807")
		}
		return []byte(fits[r.IntN(len(fits))])
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if noisy && r.IntN(3) == 0 {
			return []byte([]string{"-1", "65536", "2.5", "1e3"}[r.IntN(4)])
		}
		return []byte([]string{"0", "3", "255"}[r.IntN(3)])
	case reflect.Float32, reflect.Float64:
		return []byte([]string{"0", "3", "-1", "65535", "2.5", "1e3", "-0.5e-2"}[r.IntN(7)])
	case reflect.Pointer:
		return genValue(r, t.Elem(), depth, noisy)
	case reflect.Slice, reflect.Array:
		var parts []string
		for range r.IntN(4) {
			parts = append(parts, string(genValue(r, t.Elem(), depth+1, noisy)))
		}
		return []byte("[" + strings.Join(parts, ",") + "]")
	case reflect.Map:
		var parts []string
		for range r.IntN(3) {
			parts = append(parts, string(genString(r))+":"+string(genValue(r, t.Elem(), depth+1, noisy)))
		}
		return []byte("{" + strings.Join(parts, ",") + "}")
	case reflect.Struct:
		return genObject(r, t, depth+1, noisy)
	}
	return []byte("null")
}

// genString writes a JSON string with escapes, non-ASCII text, long
// plain runs, and now and then invalid UTF-8 or a lone surrogate.
func genString(r *rand.Rand) []byte {
	var b strings.Builder
	b.WriteByte('"')
	for range r.IntN(6) {
		switch r.IntN(9) {
		case 0:
			b.WriteString(`\n\t\"\\\/`)
		case 1:
			b.WriteString("é☃😀")
		case 2:
			b.WriteString(`\u00e9\ud83d\ude00`)
		case 3:
			b.WriteString(`\ud83d`)
		case 4:
			b.WriteString("\xff\xfe")
		case 5:
			b.WriteString(strings.Repeat("plain text ", 1+r.IntN(4)))
		default:
			b.WriteString([]string{"read_file", "r-1", "default", "a.txt", ""}[r.IntN(5)])
		}
	}
	b.WriteByte('"')
	if !utf8.ValidString(b.String()) && r.IntN(2) == 0 {
		return []byte(`"fine"`)
	}
	return []byte(b.String())
}

// wrongValue is any JSON value at all.
func wrongValue(r *rand.Rand) []byte {
	return []byte([]string{`null`, `true`, `false`, `0`, `-3.25e2`, `"x"`, `[]`, `[1,"a",null]`, `{}`, `{"a":{"b":[]}}`, `""`}[r.IntN(11)])
}
