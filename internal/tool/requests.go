package tool

import "sync"

// maxRequests bounds how many requests Requests remembers: a request that
// old is long finished.
const maxRequests = 256

// maxSources bounds the untrusted sources kept per request.
const maxSources = 32

// Requests remembers, per request (one chat turn), what its calls have
// seen that later calls must answer for: whether it read untrusted content
// from the web, and from where. The nil *Requests remembers nothing.
type Requests struct {
	mu    sync.Mutex
	order []string
	m     map[string]*requestState
}

type requestState struct {
	untrusted []string
}

// NewRequests makes an empty memory of requests.
func NewRequests() *Requests { return &Requests{m: map[string]*requestState{}} }

func (r *Requests) state(id string) *requestState {
	st := r.m[id]
	if st == nil {
		if len(r.order) == maxRequests {
			delete(r.m, r.order[0])
			r.order = r.order[1:]
		}
		st = &requestState{}
		r.m[id] = st
		r.order = append(r.order, id)
	}
	return st
}

// MarkUntrusted records that request id read content from source (a URL,
// a search query, a command that reached the network), which is data from
// outside and may carry instructions that are not the user's.
func (r *Requests) MarkUntrusted(id, source string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.state(id)
	for _, s := range st.untrusted {
		if s == source {
			return
		}
	}
	if len(st.untrusted) < maxSources {
		st.untrusted = append(st.untrusted, source)
	}
}

// Untrusted lists the untrusted sources request id has read, oldest first;
// none means it read nothing from outside.
func (r *Requests) Untrusted(id string) []string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.m[id]; st != nil {
		return append([]string(nil), st.untrusted...)
	}
	return nil
}
