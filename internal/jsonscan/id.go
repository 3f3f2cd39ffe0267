package jsonscan

import (
	"bytes"
	"encoding/json"
)

// LeadingID finds the top-level "id" of a JSON-RPC message given only its
// start (a message cut short, or one that is not valid JSON further on),
// so that a message refused unread can still be answered by id. valid
// checks the raw id and returns the form to echo; LeadingID gives up
// (nil) when the id is invalid, or comes after a value head does not hold
// whole.
func LeadingID(head []byte, valid func(raw []byte) ([]byte, bool)) []byte {
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		if key == "id" {
			if id, ok := valid(value); ok {
				return id
			}
			return nil
		}
	}
	return nil
}
