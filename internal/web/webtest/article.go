// Package webtest holds what the web packages' tests and benchmarks share:
// a generator of realistic article pages, so no test needs the internet.
package webtest

import (
	"fmt"
	"strings"
)

// words is the vocabulary of the generated prose.
var words = strings.Fields(`the daemon reads each request and checks the host before any
connection is made while the editor shows what will happen so that nothing runs unseen
a page is converted once and served again from memory for the next part of the text
readers want the main content without menus banners or scripts that load more menus`)

// Article returns an HTML page of about size bytes shaped like a real
// article: a head with styles and scripts, a site menu, a sidebar, the
// article itself (headings, paragraphs with links and emphasis, lists, code,
// a table, a quote), comments and a footer. The same size gives the same page.
func Article(size int) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>How the cache works | Example Docs</title>
<meta name="description" content="An article about caches.">
<meta property="og:title" content="How the cache works">
<style>body{font-family:sans-serif} .nav a{color:#333} .sidebar{float:right;width:200px}</style>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}</script>
</head><body><header class="site-header"><div class="nav" role="navigation"><ul>`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></div><form class="search"><input name="q"><button>Search</button></form></header>
<aside class="sidebar"><h3>Related</h3><ul>`)
	for i := 0; i < 15; i++ {
		fmt.Fprintf(&b, `<li><a href="/related/%d">A related page with a long title number %d</a></li>`, i, i)
	}
	b.WriteString(`</ul><div class="ad">Advertisement</div></aside>
<main><article><h1>How the cache works</h1><p class="byline">By A. Writer, 1 December 2026</p>`)
	w := 0
	next := func(n int) string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[w%len(words)]
			w += 7
		}
		return strings.Join(out, " ")
	}
	section := 0
	// Leave room for the comments and footer written after the loop.
	for b.Len() < size-6000 {
		section++
		fmt.Fprintf(&b, "<h2 id=\"s%d\">Section %d: %s</h2>\n", section, section, next(4))
		for p := 0; p < 4; p++ {
			fmt.Fprintf(&b, "<p>%s <a href=\"/docs/page-%d\">%s</a> %s <em>%s</em>, <strong>%s</strong> and <code>cache.Get</code>. %s.</p>\n",
				next(25), section*10+p, next(3), next(20), next(2), next(3), next(30))
		}
		switch section % 4 {
		case 0:
			b.WriteString("<ul>")
			for i := 0; i < 5; i++ {
				fmt.Fprintf(&b, "<li>%s</li>", next(8))
			}
			b.WriteString("</ul>\n")
		case 1:
			fmt.Fprintf(&b, "<pre><code class=\"language-go\">func get(key string) (string, bool) {\n\t// %s\n\treturn c.items[key], true\n}\n</code></pre>\n", next(6))
		case 2:
			b.WriteString("<table><thead><tr><th>Size</th><th>Time</th><th>Note</th></tr></thead><tbody>")
			for i := 0; i < 4; i++ {
				fmt.Fprintf(&b, "<tr><td>%d KB</td><td>%d ms</td><td>%s</td></tr>", (i+1)*50, i*3+1, next(4))
			}
			b.WriteString("</tbody></table>\n")
		case 3:
			fmt.Fprintf(&b, "<blockquote><p>%s</p></blockquote>\n", next(20))
		}
	}
	b.WriteString(`</article></main><section class="comments"><h3>Comments</h3>`)
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&b, `<div class="comment"><span class="author">user%d</span><p>%s</p></div>`, i, next(15))
	}
	b.WriteString(`</section><footer class="site-footer"><p>Copyright Example. <a href="/privacy">Privacy</a> <a href="/terms">Terms</a></p></footer>
<script src="/static/app.js"></script></body></html>`)
	return b.String()
}
