package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// object is a JSON object that keeps its keys in file order, so that
// rewriting one section of package.json leaves the rest as people wrote it.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // inside an object the decoder only yields string keys here
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		o = append(o, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set replaces key's value where it stands, or appends it.
func (o *object) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = v
			return
		}
	}
	*o = append(*o, member{key, v})
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes v without escaping <, > and &, as npm and JSON.stringify
// write them, so the file does not churn between the two writers.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// formatJSON indents like JSON.stringify(v, null, 2) plus a final newline,
// which is how npm writes package.json.
func formatJSON(compact []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// RewritePackageJSON returns pkg with contributes.languageModelTools set
// to tools and everything else kept in place.
func RewritePackageJSON(pkg []byte, tools []LanguageModelTool) ([]byte, error) {
	root, err := parseObject(pkg)
	if err != nil {
		return nil, fmt.Errorf("package.json: %w", err)
	}
	contributes := object{}
	if raw, ok := root.get("contributes"); ok {
		if contributes, err = parseObject(raw); err != nil {
			return nil, fmt.Errorf("package.json contributes: %w", err)
		}
	}
	if tools == nil {
		tools = []LanguageModelTool{} // [] rather than null: VS Code expects an array
	}
	toolsJSON, err := marshal(tools)
	if err != nil {
		return nil, err
	}
	contributes.set("languageModelTools", toolsJSON)
	c, err := marshal(contributes)
	if err != nil {
		return nil, err
	}
	root.set("contributes", c)
	all, err := marshal(root)
	if err != nil {
		return nil, err
	}
	return formatJSON(all)
}

// packageToolsRaw extracts contributes.languageModelTools, compacted.
func packageToolsRaw(pkg []byte) ([]byte, error) {
	root, err := parseObject(pkg)
	if err != nil {
		return nil, fmt.Errorf("package.json: %w", err)
	}
	raw, ok := root.get("contributes")
	if !ok {
		return nil, errors.New("package.json has no contributes section")
	}
	contributes, err := parseObject(raw)
	if err != nil {
		return nil, err
	}
	tools, ok := contributes.get("languageModelTools")
	if !ok {
		return nil, errors.New("package.json has no contributes.languageModelTools")
	}
	var b bytes.Buffer
	if err := json.Compact(&b, tools); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
