package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Argument errors name the argument and say, in words, what it accepts
// ("offset must be a whole number from 1 to 9223372036854775807; it was
// -1"), rather than the validator's or the JSON decoder's own wording,
// which a model reads as noise.

// explainArgs finds the first argument of instance that schema s does not
// accept and says so; fallback is used when none is found.
func explainArgs(s *jsonschema.Schema, instance any, fallback string) string {
	if msg := problem("", s, instance); msg != "" {
		return msg
	}
	return fallback
}

// explainDecode turns the JSON decoder's error for a value the schema let
// through (a whole number too large for the Go integer it goes into) into
// the same words.
func explainDecode(s *jsonschema.Schema, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" {
		return err
	}
	prop := s
	for _, part := range strings.Split(te.Field, ".") {
		if prop == nil {
			break
		}
		if _, isIndex := strconv.Atoi(part); isIndex == nil {
			prop = prop.Items
			continue
		}
		prop = prop.Properties[part]
	}
	if prop == nil {
		return err
	}
	got := strings.TrimPrefix(te.Value, "number ")
	return fmt.Errorf("%s must be %s; it was %s", te.Field, accepts(prop), got)
}

// problem describes what is wrong with v at name ("" for the arguments as
// a whole), or returns "".
func problem(name string, s *jsonschema.Schema, v any) string {
	if s == nil {
		return ""
	}
	label := name
	if label == "" {
		label = "the arguments"
	}
	typ := schemaType(s)
	if typ != "" && !hasType(typ, v) {
		return fmt.Sprintf("%s must be %s; it was %s", label, accepts(s), describeValue(v))
	}
	switch x := v.(type) {
	case float64:
		lo, hi := bounds(s)
		if x < lo || x > hi || (s.ExclusiveMinimum != nil && x <= *s.ExclusiveMinimum) || (s.ExclusiveMaximum != nil && x >= *s.ExclusiveMaximum) {
			return fmt.Sprintf("%s must be %s; it was %s", label, accepts(s), describeValue(v))
		}
	case string:
		n := len([]rune(x))
		if (s.MinLength != nil && n < *s.MinLength) || (s.MaxLength != nil && n > *s.MaxLength) {
			return fmt.Sprintf("%s must be %s; it was %s", label, accepts(s), describeValue(v))
		}
	case []any:
		if (s.MinItems != nil && len(x) < *s.MinItems) || (s.MaxItems != nil && len(x) > *s.MaxItems) {
			return fmt.Sprintf("%s must be %s; it had %d", label, accepts(s), len(x))
		}
		for i, item := range x {
			if msg := problem(fmt.Sprintf("%s[%d]", name, i), s.Items, item); msg != "" {
				return msg
			}
		}
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := x[r]; !ok {
				return fmt.Sprintf("%s is required: %s", join(name, r), accepts(s.Properties[r]))
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if msg := problem(join(name, k), s.Properties[k], x[k]); msg != "" {
				return msg
			}
		}
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		return fmt.Sprintf("%s must be %s; it was %s", label, accepts(s), describeValue(v))
	}
	return ""
}

func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// schemaType is the one JSON type a schema asks for, or "" for any.
func schemaType(s *jsonschema.Schema) string {
	if s.Type != "" {
		return s.Type
	}
	if len(s.Types) == 1 {
		return s.Types[0]
	}
	return ""
}

func hasType(typ string, v any) bool {
	switch x := v.(type) {
	case nil:
		return typ == "null"
	case bool:
		return typ == "boolean"
	case string:
		return typ == "string"
	case []any:
		return typ == "array"
	case map[string]any:
		return typ == "object"
	case float64:
		return typ == "number" || (typ == "integer" && x == math.Trunc(x) && !math.IsInf(x, 0))
	}
	return false
}

// bounds are the least and greatest numbers a schema accepts: its own, and
// for a whole number at most the range of the Go int it is decoded into.
func bounds(s *jsonschema.Schema) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if schemaType(s) == "integer" {
		lo, hi = math.MinInt, math.MaxInt
	}
	if s.Minimum != nil {
		lo = max(lo, *s.Minimum)
	}
	if s.Maximum != nil {
		hi = min(hi, *s.Maximum)
	}
	return lo, hi
}

// accepts says in words what a schema accepts: "a whole number from 1 to
// 9223372036854775807", "one of pending, in_progress, done".
func accepts(s *jsonschema.Schema) string {
	if s == nil {
		return "a value"
	}
	if len(s.Enum) > 0 {
		parts := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			parts[i] = fmt.Sprint(e)
		}
		return "one of " + strings.Join(parts, ", ")
	}
	switch schemaType(s) {
	case "integer":
		lo, hi := bounds(s)
		return "a whole number " + numberRange(lo, hi)
	case "number":
		lo, hi := bounds(s)
		if s.ExclusiveMinimum != nil && math.IsInf(lo, -1) && *s.ExclusiveMinimum == 0 && math.IsInf(hi, 1) {
			return "a number greater than 0"
		}
		if math.IsInf(lo, -1) && math.IsInf(hi, 1) {
			return "a number"
		}
		return "a number " + numberRange(lo, hi)
	case "string":
		switch {
		case s.MinLength != nil && s.MaxLength != nil:
			return fmt.Sprintf("a string of %d to %d characters", *s.MinLength, *s.MaxLength)
		case s.MinLength != nil && *s.MinLength == 1:
			return "a non-empty string"
		case s.MinLength != nil:
			return fmt.Sprintf("a string of at least %d characters", *s.MinLength)
		case s.MaxLength != nil:
			return fmt.Sprintf("a string of at most %d characters", *s.MaxLength)
		}
		return "a string"
	case "boolean":
		return "true or false"
	case "array":
		what := "a list"
		if s.Items != nil {
			what = "a list of " + plural(accepts(s.Items))
		}
		switch {
		case s.MinItems != nil && s.MaxItems != nil:
			return fmt.Sprintf("%s, %d to %d of them", what, *s.MinItems, *s.MaxItems)
		case s.MinItems != nil:
			return fmt.Sprintf("%s, at least %d", what, *s.MinItems)
		case s.MaxItems != nil:
			return fmt.Sprintf("%s, at most %d", what, *s.MaxItems)
		}
		return what
	case "object":
		if len(s.Properties) == 0 {
			return "an object"
		}
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		slices.Sort(names)
		return "an object with " + strings.Join(names, ", ")
	}
	return "a value"
}

// plural turns "a string" into "strings", "an object with x" into
// "objects with x", for a list's items.
func plural(what string) string {
	what = strings.TrimPrefix(strings.TrimPrefix(what, "a "), "an ")
	head, rest, _ := strings.Cut(what, " ")
	switch head {
	case "whole":
		return "whole numbers" + strings.TrimPrefix(rest, "number")
	case "one":
		return "values, each " + what
	}
	if rest == "" {
		return head + "s"
	}
	return head + "s " + rest
}

func numberRange(lo, hi float64) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	if lo == math.MinInt {
		lo = math.Inf(-1)
	}
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return "of any size"
	case math.IsInf(lo, -1):
		return "of at most " + f(hi)
	case math.IsInf(hi, 1):
		return "of at least " + f(lo)
	case hi == math.MaxInt:
		return fmt.Sprintf("from %s to %d", f(lo), math.MaxInt)
	}
	return "from " + f(lo) + " to " + f(hi)
}

// describeValue shows a value the model sent, briefly.
func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 60 {
			x = CutUTF8(x[:60]) + "…"
		}
		return fmt.Sprintf("the string %q", x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e21 {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		return fmt.Sprintf("a list of %d", len(x))
	case map[string]any:
		return "an object"
	}
	return fmt.Sprint(v)
}
