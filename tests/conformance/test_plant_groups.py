"""Groups of checks and the relay plants written for them: each check is held to pass on the
reference server (by the tier runs of test_reference_server), each plant's catchers pass through the relay unplanted, and each plant is caught citing
the requirement it breaks.

One row of `GROUPS` per family of plants (`run.plants.<module>`):

- batch client fields: a batch carrying Expect refused 417, or answered 100 with its content
  unread, Pragma refused, Range applied to the batch's answer (MB-STATUS-1), its
  Cache-Control applied to the parts (MB-SUB-6);
- continue after failing statuses: a part answered 401, 403, 409, 429, 503 and the like ends a
  batch under the continue policy (MB-PROC-5);
- stop whatever parts prefer: a part's own `Prefer: batch-on-error=continue` lifts the batch's
  stop (MB-PROC-6);
- conditional evaluations: a part's conditional fields evaluated wrongly alone as in a part
  (MB-PROC-9);
- date readings: the HTTP-dates of If-Modified-Since and If-Unmodified-Since misread, alone
  as in a part: an rfc850-date's two-digit year counted from 1900 or by a fixed pivot, an
  asctime-date unread, ISO 8601 dates, other zones or a lower-case month taken for dates
  (MB-PROC-9), the last on standalone collection retrievals only (MB-STATUS-7);
- tag list readings: If-Match and If-None-Match lists compared as one tag per field line, split
  at commas inside quotes, read by their first member, refused for an empty element, or cut to
  a part's last field line (MB-PROC-9, MB-STATUS-7);
- field scope: Prefer split at semicolons or inside quotes (MB-PROC-5), of several
  batch-on-error instances the last followed instead of the first, or a first one without a
  value or with an empty one read past (MB-PROC-13), its quoted-strings
  ended at an escaped quote or at a quote after an escaped backslash (MB-PROC-5, MB-PROC-6), a
  client field of the
  batch applied to its parts (MB-SUB-6), a batch rule applied to a part's own field (MB-PART-8);
- list and tag readings: a Batch-Mode list answered 501 unless it is one mode on one line
  (MB-PROC-17), a lookalike value cut at `;` or compared without case, a Batch-Mode holding no
  element run as if absent (MB-PROC-12), a strong aggregate ETag over member tags only
  (MB-METHOD-7);
- octet units: a section or body one octet over its limit let through when it holds multi-octet
  characters (MB-STATUS-3);
- refusal readings: target refusals without `part_index` (MB-STATUS-4), a Content-Encoding list
  read by its first member (MB-INTER-6), a coding's 415 naming another requirement (MB-STATUS-4), an echo's authority without its port (MB-TEST-2), a
  whitespace line taken as the empty line (MB-PART-11), collection parts typed alike
  (MB-METHOD-4), an atomic batch over its budget not aborted (MB-SEC-1, deep tier);
- further ways to break what a sub-request receives and what its part carries (MB-SEC-2,
  MB-WIRE-15, MB-SUB-5, MB-PART-13, MB-METHOD-7);
- input classes: a part's Content-* or empty fields, query-only references, forwarding fields,
  targets validated in an earlier batch, sandbox inputs (a PUT part without Content-Type given
  application/json, MB-PART-8);
- registered codings: compress taken for a zlib format and answered 400 as content that does
  not decode, unnamed or named in the 415; a 415 naming codings the server refuses 415; compress
  decoded but left out of Accept-Encoding (MB-INTER-6);
- coding lookalikes: MIME transfer encodings, the transfer coding chunked, identity with a
  parameter or quoted, or lookalikes under a 207 form or mode taken for identity (MB-INTER-6);
- content coding stacks: codings removed in the order listed, or a stack of codings decoded
  alone refused 415 (MB-INTER-6);
- chunked name case: Transfer-Encoding naming chunked in another case refused 400 or 501
  (MB-INTER-5);
- budget client fields: a batch's time budget lengthened by Prefer: wait or respond-async,
  Keep-Alive or Timeout, in multipart, JSON and an atomic batch (MB-SEC-1, slow);
- advertised and counted: a created resource's Location at the top (MB-SEC-2), gzip decoded
  but left out of Accept-Encoding (MB-INTER-6), a declared-length 413 without its limit
  (MB-LIMIT-4), field lines with blank values uncounted (MB-LIMIT-5);
- boundaries, empty lines and sizes: a boundary holding a token character outside bchars
  accepted (MB-WIRE-4), a bodyless response part without its empty line (MB-WIRE-7), a
  sub-response cut at 1 MiB (MB-RESP-4), a target's port read as an integer or by its leading
  digits (MB-PART-4); dot segments kept in an absolute URI's or a relative
  reference's path (MB-PART-5) are in the input classes;
- order and isolation: GET parts of another batch read outside an atomic batch's hold, an
  atomic batch's snapshot taken before its hold and restored with another's writes
  (MB-PROC-15), safe parts started before the writes ahead of them (MB-PROC-2), a GET, HEAD,
  OPTIONS or DELETE part's content dropped (MB-SUB-1);
- write kinds of an atomic rollback, and aggregate dates;
- aggregate recency: a collection retrieval's aggregate Last-Modified taken from the last
  member, on GET or on HEAD alone, moved only when a member comes or goes, kept after the
  latest member was deleted, or the last member's beside parts without dates (MB-METHOD-5);
  If-Modified-Since evaluated against the last member's date (MB-STATUS-7); parts dated with
  the aggregate (MB-METHOD-4); an aggregate ETag of the member count and the last member's tag
  (MB-METHOD-7);
- client leaving: the writes a batch's answer reported done undone once its client leaves
  before the answer ended, when a write to it fails or when its end of stream arrives, under
  the continue policy (MB-PROC-2) and for a committed atomic batch (MB-PROC-16, slow);
- fault placement: a part fault refused in one position only (the last part's Content-Length,
  the first part's field lines) or named one part off (MB-WIRE-17, MB-PART-11, MB-STATUS-4),
  envelope faults taken for failing parts under stop or in an atomic batch (MB-STATUS-2,
  MB-WIRE-2, MB-STATUS-9), and faults placed elsewhere than spec 5.3 puts them: a repeated
  Content-Length at its first line, a repeated field at the line after its first or counted
  without the preamble, a section over max_part_fields or max_part_header_bytes at the line
  that crosses the limit or counted without the preamble, a forbidden field at its section's
  start, a delimiter line's fault at the CRLF before it, a close delimiter's in the last part
  (MB-STATUS-4);
- mode writers: the answer to a batch asking for stop or atomic written without Vary
  (MB-MULTI-10), with one boundary for every such answer (MB-WIRE-5) or a boundary holding a
  colon unquoted (MB-WIRE-3), its form chosen by the first Accept member or an empty Accept
  refused (MB-MULTI-1), an Accept admitting nothing answered in multipart (MB-STATUS-9), a
  skipped or rolled-back part echoing its resolved target (MB-RESP-3);
- mode paths: a rule kept on the plain batch and broken under stop, in an atomic batch, in a
  chunked batch or in the batch after it on the same connection (MB-PROC-5, MB-SUB-5,
  MB-SUB-6, MB-PROC-1, MB-SEC-2, MB-INTER-4), atomic and stop asked together (MB-PROC-8, MB-PROC-6),
  its answer held whole, or held after a part without content (MB-PROC-4, slow);
- mode subrequests: what a sub-request receives broken on the atomic or the references path
  only: Http-Method and Content-Id named in another case handed on (MB-PART-8), no inherited
  credentials, or the batch's first Cookie line only (MB-SUB-5);
- precondition order: a field RFC 9110 §13.2.2 ignores beside another evaluated, If-Match: *
  true for an absent member (MB-PROC-9), a 412 or another resource status not failing a part
  under stop or in an atomic batch, nor an unknown method's or a HEAD's, a 3xx failing one
  (MB-PROC-6, MB-PROC-8);
- endpoint and resource edges: TRACE on the batch endpoint answered 501, its methods matched
  without letter case or a lower-case method refused 400 (MB-METHOD-2), a
  router's 405 in plain text (MB-STATUS-4), OPTIONS with a query not routed or a capabilities
  document naming another endpoint (MB-LIMIT-2), a random count capped at 1 MiB (MB-TEST-5), a
  delay of 0 refused or a delayed part's wait counted from its batch's arrival (MB-TEST-7), a
  chunked batch with a trailer section refused (MB-INTER-5).
- exact values: a status code with no name, or a rarely named one, reported as the x00 code
  of its class in a part (MB-RESP-2), in DAV:status (MB-MULTI-6) or in the JSON status
  (MB-MULTI-4); a rolled-back part's outcome left out of the XML form (MB-MULTI-6) or null in
  the JSON form (MB-MULTI-4); entity tags compared case-insensitively, with whitespace inside
  their quotes trimmed, without quotes, with `w/` as the weakness indicator or by prefix or
  suffix, in a part (MB-PROC-9) and on a collection retrieval (MB-STATUS-7);
- part security: a forbidden field dropped when its value reads as a no-op (MB-PART-10), a
  part's own Cookie kept for the parts after it or one Authorization line of several inherited
  (MB-SUB-5), a target's host compared as an IP
  address (MB-SUB-2), the nesting test run on an absolute target's authority as written or on
  its path before dot segments are removed (MB-SUB-4);
- refusal documents: a 406, a JSON form's 400, an atomic batch's 400 or a 501 whose problem
  document lacks its type or title (MB-STATUS-4), a limit's value given as the count the batch reached (MB-LIMIT-4),
  an abort part's document without type or title (MB-STATUS-6, slow);
- valid inputs: a Content-Id holding %00 or a second ?, an absolute URI without path or the
  reference . refused (MB-PART-4), %2F and %3F decoded or an empty query dropped (MB-PART-5), a
  Content-Id capped at 2048 octets (MB-PART-12), a long Http-Method refused (MB-PART-2), padding
  before an epilogue refused (MB-WIRE-11), a body holding the bare boundary refused (MB-PART-8),
  a value opening with obs-text refused (MB-PART-11), a preamble that is not UTF-8 refused
  (MB-WIRE-9);
- outcome shapes: a failing last part of an atomic batch marked rolled-back, a failure at
  part 0 not stopping an atomic or stop batch (MB-PROC-8, MB-PROC-6), a rolled-back part's
  Http-Status-Code written twice (MB-RESP-2), a limit refusal's unread content read as the
  next request and a connection closed after rolled-back parts (MB-PIPE-1, slow), an atomic
  batch's field-line refusal naming max_part_header_bytes (MB-LIMIT-5);
- frame readings: content with no delimiter line, or ending on a delimiter line without its
  CRLF, placed elsewhere than spec 5.3 puts it (MB-STATUS-4); a batch with two Content-Type
  lines run by one of them (MB-WIRE-4) or refused unnamed, a 400 for a missing Content-Type
  naming MB-WIRE-2 (MB-STATUS-4); `<http:path>` resolved non-strictly (MB-SUB-2); a 501 for an
  unrecognised method naming the Batch-Mode rule (MB-STATUS-4); Accept parameters, empty
  elements or a member that is no media range misread (MB-MULTI-1); the XML abort report
  naming a part (MB-MULTI-6, slow); a 400 given early closing the connection within 64 KiB
  (MB-PIPE-1);
- summary counts: a Batch-Summary trailer or JSON summary counting only 2xx parts ok, only 4xx
  parts failed, or leaving 204 and 304 parts out (MB-STATUS-15, MB-MULTI-4);
- OWS and head sizes: a tab between the batch's media subtype and `;` refused (MB-WIRE-4), a
  Prefer holding a tab not read (MB-PROC-13), the echo of a request alone with a head over 8 KiB
  reporting its fields sorted and canonicalised (MB-TEST-2);
- member octets: text re-encoded from its charset to UTF-8, a byte order mark, trailing
  whitespace or what follows a NUL dropped, octets or invalid UTF-8 put through a replacing
  decoder, bare LFs written as CRLF by a part's write or read (MB-TEST-4) or in a collection
  retrieval's parts (MB-METHOD-4), text decoded by its charset into the JSON form's body
  (MB-MULTI-5);
- carried content: a JSON string writer escaping control characters by their decimal code
  (MB-MULTI-5), the status resource's 304 answered with content that only a part shows
  (MB-TEST-6);
- text windows: the JSON form's body member chosen by the first 512, 4,096 or 65,536 octets,
  by the first and last 512, by 512-octet chunks each on its own, or by a decoder that holds
  back a sequence cut short at the end (MB-MULTI-7), and the XML form's body sniffed as text by
  its first 512 octets and decoded replacing (MB-MULTI-5);
- collection representations: Content-Ids made absolute with the request's Host, or a boundary
  hashed from the request's Host and target, under a strong aggregate ETag, or the JSON listing
  under that tag (MB-METHOD-7); a retrieval's If-None-Match or If-Match matched by another
  representation's tag (MB-STATUS-7); a
  member written without content labelled 204 in a retrieval though its GET alone answers 200
  (MB-METHOD-4);
- collection preconditions: a POST to the collection that ignores If-None-Match: * or a foreign
  If-Match (MB-PROC-9), an empty collection's If-Modified-Since compared with the zero time,
  alone (MB-STATUS-11) or in a part (MB-PROC-9);
- connection requests: a request's fields read from the last head on the connection with its
  request line, the first batch's Accept, Prefer and Batch-Mode or boundary, the first request's
  Host, and the previous request's fields or content, given to other requests on the connection
  (MB-TEST-2, MB-MULTI-1, MB-PROC-6, MB-WIRE-4);
- busy connections: the connection closed after the budget's 503, or the refused batch's
  content read as the next request (MB-PIPE-1, slow);
- parameter readings: a batch Content-Type with an empty parameter refused, its quoted
  parameter values ended at an escaped quote, at a quote after an escaped backslash or not
  read as quoted at all, a boundary holding a backslash accepted, a parameter without `=` or
  without a name skipped (MB-WIRE-4), Accept split
  inside a quoted value or ended at an escaped quote (MB-STATUS-9, MB-MULTI-1), an Accept
  member that is no media range taken to refuse every form (MB-MULTI-1), Accept ranges matched
  as glob patterns or as prefixes of a form (MB-STATUS-9);
- targets and hosts: a Content-Id with a bad scheme, a fragment holding # or brackets or a query
  holding a bracket taken (MB-PART-4) or refused at part 0 (MB-STATUS-4), dot segments climbing
  above the root refused or kept (MB-PART-5), a Host with a bad escape, misplaced brackets, a
  reg-name delimiter or an IPvFuture with a version that is not hex or a character outside its
  set taken, a valid IP-literal or encoded Host refused (MB-PART-5), an absolute
  target naming an IP-literal Host taken for another origin (MB-SUB-2);
- lookalike readings: a delimiter line ending in -- taken for the close delimiter, a boundary
  beginning or ending in hyphens not found, one ending in = or : refused (MB-WIRE-4); a part
  without Content-Id, or with an empty one or <>, given the target of a Content-Location,
  Location, Content-Base, Http-Target, Content-Disposition name, Message-Id or a field named
  like Content-Id (MB-PART-4, MB-SUB-4); a missing close delimiter placed at the last body's,
  header section's or delimiter line's start, or in the part before the last (MB-STATUS-4);
- targets and hosts also hold a Content-Id naming an IP-literal host refused as malformed, its
  brackets taken for characters outside the grammar (MB-PART-4);
- running part at budget: the part still running when the time budget ends written
  `Http-Status-Code: 200` with no content before its delay could have passed, the abort part
  after it (MB-RESP-2, slow);
- budget stand-ins: the part running when the time budget ends written as an ordinary 500 or
  504 part, the abort part naming the part after it or left out when the part was the last, in
  multipart/mixed, the JSON form and over HTTP/1.0, and the abort part left out when the part
  it names is the last (MB-STATUS-6, slow);
- GET content and ranges: a GET whose content is a batch, by Content-Length or chunked, run
  as one, or a retrieval's batch content dropped (MB-METHOD-3); a collection retrieval with
  Range answered 206 alone, under a matching If-Range or in a part, or 416 past its end
  (MB-STATUS-7);
- origin ports: under a Host naming the scheme's default port, the default written on one side
  and absent on the other, an empty port or one with a leading zero compared as text, and an
  IP-literal's brackets stripped only before a port (MB-SUB-2);
- document fields: a miss's X-Content-Type-Options copied to the header section of the JSON
  and XML forms, the miss carrying it alone too (MB-SEC-2);
- origin and scope readings: a target's host compared once percent-decoded or its port read
  into 16 bits (MB-SUB-2), the anti-CSRF token passed on with the batch's Cookie or the batch's
  media type given to untyped content (MB-SUB-6), a chunked batch's content coding ignored
  (MB-INTER-6), a refusal of section 8 closing the connection (MB-PIPE-1), the endpoint's
  methods matched in any case (MB-METHOD-2), an aggregate tag kept through an atomic rollback
  (MB-METHOD-7), a committed atomic batch's one creation pointed at from the top (MB-SEC-2);
- refusal connections: every 413 and 431 closing the connection, also once the content was read
  whole (MB-PIPE-1, slow: it holds content back for a second per refusal);
- early refusal connections: a 405, 406, 415 or 501 of 65,536 octets of content closing the
  connection, one of longer content closing it without `Connection: close`, and one of small
  chunked content, or of chunked content ending in a trailer section, closing it (MB-PIPE-1);
- MIME readings: an RFC 2231 extended or continued boundary parameter taken as the boundary,
  comments removed from the batch Content-Type or an encoded-word boundary decoded (MB-WIRE-4),
  a part Content-Length read with comments removed, unquoted, decoded from an encoded-word or
  with its spaces and plus sign dropped (MB-WIRE-20), an Http-Method read with comments removed
  or decoded (MB-PART-2), a Content-Id read with comments outside its brackets removed or
  decoded (MB-PART-4), a part Content-Type holding a comment refused (MB-PART-8);
- content extent: the epilogue or the preamble left out of the count held against
  max_batch_bytes (MB-STATUS-3, slow: each case sends max_batch_bytes).
- coded limits: a server decoding gzip and deflate that holds max_batch_bytes against the coded
  octets (MB-STATUS-3), runs a decoded part over max_part_fields (MB-LIMIT-5) or over
  max_part_bytes (MB-STATUS-3), or counts a problem's byte_offset in coded octets (MB-STATUS-4);
  the catchers are N/A on the reference server, which decodes no coding.
- request spellings: the XML form's DAV:status written with an HTTP/1.0 batch's version
  (MB-MULTI-6), a router decoding encoded unreserved characters whose echo reports the decoded
  path (MB-TEST-2), a nesting test trimming a trailing slash or folding case so a part naming a
  path routed elsewhere refuses the batch (MB-SUB-4).
- versions, statuses and weights: the answer to an HTTP/1.0 batch held whole for a
  Content-Length (MB-PROC-4, slow, a WARN unless strict) or its abort part left without the
  close delimiter (MB-STATUS-6, slow), a 205 part's content dropped (MB-RESP-4), an Accept
  weight read only where spelt `;q=` (MB-MULTI-1).
- absolute-form: a batch in absolute-form whose parts resolve against the request-target string
  as a path, so a relative reference to the endpoint runs (MB-SUB-4), and an echo reporting an
  absolute-form request's Host field line as its authority (MB-TEST-2).
- discovery requests: the capabilities document's representations ranked by the OPTIONS
  request's Accept, or the document cut short of members the schema requires for `Prefer:
  return=minimal` (MB-LIMIT-2); limits that differ with credentials are allowed, not planted.
- element and preamble readings: a Batch-Mode or Content-Encoding list split at whitespace as
  well as commas (MB-PROC-12, MB-INTER-6), a byte order mark, whitespace, NUL or a bare CR
  dropped from the start of the content or the first dash-boundary taken wherever it lies, so
  a part in the preamble runs (MB-WIRE-9), a line of the dash-boundary and more boundary
  characters read as preamble (MB-WIRE-19).
- sandbox creation names: a POST after a DELETE naming its new member after the newest member a
  POST created, or one a PUT created, writing over it (MB-TEST-3);
- sandbox names: a POST to the sandbox naming its new member after one a PUT created, replacing
  it (MB-TEST-3); its catcher is N/A on the reference server, whose sandbox refuses a PUT to an
  absent member, so the group holds no check to pass there.
- sandbox member ids: ids naming what every object inherits taken as present before anything
  was written, ids reading as one number taken for one member, the second answered as a
  replacement or written over the first, a percent-encoded spelling decoded for writes and not
  for reads (MB-TEST-3, MB-TEST-4); ids differing in case taken for one member (MB-TEST-3), whose
  catcher is N/A on the reference server, whose sandbox refuses a PUT to an absent member.
- fault pair documents: a part limit (max_part_bytes by a declared length, max_part_header_bytes,
  max_part_fields, max_parts) or max_batch_bytes exceeded beside a malformed envelope, answered
  with the limit's status and the malformed fault's requirement and place, or with the malformed
  fault's 400 raised to the limit's status, its document kept (MB-STATUS-13; max_batch_bytes
  slow).
- delimiter collisions: a member's content written into the batch answer that reads it past a
  writer's check that misses the dash-boundary at a body's start, after a bare LF, with padding
  or text after it, past its first or before its last occurrence, or everywhere (MB-WIRE-6,
  slow); its catcher is N/A on the reference server,
  whose sandbox keeps only JSON documents, so the group holds no check to pass there.
- delimiter collisions in a retrieval: a collection retrieval carrying a member's content whole
  under a boundary whose delimiter it holds, looked for nowhere or at its first occurrence alone
  (MB-WIRE-6); its catcher is N/A on the reference server, as above.
- framing spellings: a batch refused whose Content-Length or Transfer-Encoding named in another
  case than RFC 9112 writes it has a tab after its value, whose Host has a tab around it, or
  whose Content-Type has more than one octet of whitespace around it (MB-STATUS-1).
- entry fields: the JSON or XML form listing in each entry the response part's header section,
  its Content-Id, Http-Status-Code and Batch-Outcome among the sub-response's fields
  (MB-MULTI-5).
- echo octets: the echo writing field values decoded as UTF-8, so an obs-text octet reads
  U+FFFD, or content that is not UTF-8 in `body` with its octets replaced, alone and in a part;
  its authority lower-cased alone or its port written as a number, its target's
  percent-encodings or its method upper-cased (MB-TEST-2).
- resource edges: the random resource refusing the largest n its target declares, or serving
  the one after it (MB-TEST-5), a part at that n one octet short (MB-RESP-4), the status
  resource refusing 599 (MB-TEST-6), the echo describing a body over 1000 octets one octet
  short, alone and in a part (MB-TEST-2).
- trim and rule readings: a Content-Id, Http-Method, part Content-Length or batch boundary read
  with what a Unicode trim removes (a no-break space, NEL, VT, FF, U+3000, a byte order mark)
  taken off (MB-PART-4, MB-PART-2, MB-WIRE-20, MB-WIRE-4) and part field values so trimmed
  before they reach the resource (MB-PART-8); a part refused whose resolved, decoded path is
  `/*` or whose value begins with `<*` (MB-SUB-8), or whose target decoded reads as a
  network-path reference or a fragment, or holds an authority as a substring (MB-SUB-2).
- refused preconditions: a part's preconditions evaluated where its request fails without them,
  a method not routed (405) or a target that does not exist (404) answered 412, alone as in a
  part (MB-PROC-9).
- budget scope: while the budget of batches in flight is full, OPTIONS of the batch endpoint
  answered 503 (MB-LIMIT-2) (slow).
- budget kinds: the budget of batches in flight applied to some kinds of batch only, batches
  asking for one form, under one policy or mode, over HTTP/1.0 or with chunked content neither
  counted in it nor refused beyond it, or only one of the two (MB-LIMIT-6) (slow).
- refusal list neighbours: a part refused for a method beside CONNECT and TRACE (TRACK, DEBUG,
  a prefix either way) (MB-SUB-3), or for a field beside the forbidden ones (a response-part
  field, a name matching one by prefix or after an X- prefix, a name beginning like a control
  field) (MB-PART-8).
- part content fields: a part's Content-Length kept out of the sub-request, moved ahead of the
  other fields or kept back when zero, by a server whose echo lists the one received alone; a
  part's Content-Type parameters, Content-Encoding, Content-Range, digest fields or MIME fields
  kept as the part's own, its repeated content fields read into a map (MB-PART-8).
- refusal edges: each refusal rule applied one step off its edge, a valid neighbour refused or a
  refused neighbour run: a truncated multipart subtype or multipart/* taken for mixed
  (MB-WIRE-2); a quoted boundary's length or characters unchecked, its quoted-pairs counted, a
  parameter named like boundary taken for it, OWS before the next `;` kept, a last bchar other
  than a letter, digit or hyphen refused (MB-WIRE-4); a part without its empty line checked
  wrongly against its Content-Length (MB-WIRE-17); leading OWS refused, Unicode digits read, a
  lookalike field counted (MB-WIRE-20); a body line near the dash-boundary refused, one hyphen
  after it taken (MB-WIRE-19); a method's leading OWS refused or its delimiters taken
  (MB-PART-2); whitespace inside a Content-Id's brackets trimmed (MB-PART-4); the asterisk or
  the forbidden methods read under one field-name case or with their OWS (MB-SUB-8, MB-SUB-3);
  control-field text in a value or body counted, Proxy-* fields refused (MB-PART-8); the
  endpoint's path matched inside or by a prefix of a target, escapes decoded partly (MB-SUB-4);
  `$$(` or content references validated (MB-PROC-19).
- plain reference syntax: in a batch that does not ask for references, `$$(` read as `$(` in
  field values, a Content-Id or content, references substituted, or a reference to the part
  itself or a later part refused 400 (MB-PROC-18).
- reference edges: a malformed reference run as text, an index read by an integer parser,
  by its leading digits or wrapped at 2^64 (MB-PROC-19); a target refused after
  substitution answered as a failing part or by refusing the batch, the skipped part's problem
  status outside 4xx or missing, `$(N:Content-Length)`, `$(N:Http-Status-Code)` or
  `$(N:Content-Id)` resolved (MB-PROC-20); a ran part's href its Content-Id as written, a
  skipped part's left unresolved (MB-MULTI-4, MB-MULTI-6).
- unusable references: a reference to a failed part resolved from the fields its response part
  carries, or to a skipped part from its problem's fields (MB-PROC-20).
- trailer fields: a chunked batch's trailer fields merged into its header section, all of
  them, only those a Trailer field announced or only those it did not, or only its Cookie
  (MB-SUB-6), its Prefer or Batch-Mode (MB-PROC-5) or its Accept (MB-MULTI-1); its answer
  coded as a trailer Accept-Encoding asks (MB-INTER-5).
- escaped values: header field values a sandbox keeps written unescaped in one 207 form (XML
  CDATA sections cut by `]]>`, a bare `&`; JSON with bare backslashes) (MB-MULTI-3,
  MB-MULTI-4), JSON body strings with bare backslashes (MB-MULTI-4), XML hrefs with a bare `&`
  or entity-like text left as it is (MB-MULTI-3, MB-MULTI-6).
- test resources under negotiation: the ok and etag_resource answering a GET whose Accept names
  text/html with 406, alone only or in parts only (MB-TEST-1), and the echo answering one whose
  Accept names application/xml with 406 (MB-TEST-2).
- boundary neighbours: rules applied one step past their boundary: a status resource reading a
  code with a sign, padding, a digit separator, an exponent or another script's digits
  (MB-TEST-6); a sandbox answering a DELETE of an absent member 204, a replacing PUT 201, a
  refused PUT 200 or a DELETE part 202 (MB-TEST-3); a Content-Encoding list refused for an empty
  element, a tab around a comma or a second identity line (MB-INTER-6); an Accept weight of 0.001
  read as 0 on a batch (MB-MULTI-1) or a retrieval (MB-METHOD-4); a Prefer field with an empty
  element given up (MB-PROC-6); a GET with `Content-Length: 00` refused as one with content
  (MB-METHOD-3, MB-METHOD-4), and a retrieval's content ignored under Accept not spelt
  `multipart/mixed` (MB-METHOD-3).
- answer sizes: a part over 64 KiB or 1 MiB written without its Content-Length (MB-WIRE-15, a
  WARN unless strict), a processed batch answered 507, 503 or 500 once its 207 document or
  multipart answer is over 16 MiB or 1 MiB (MB-STATUS-12), JSON or XML entry bodies cut to
  1 MiB (MB-MULTI-7, MB-MULTI-6) and part bodies cut once the answer holds 16 MiB (MB-RESP-4).
- sender grammar: what a server sends, written the way a lenient reader takes though its sender
  rule forbids it: a batch answer's head with bare LFs, a folded or space-padded field line, no
  space after the status code, a field on two lines, a control octet, a chunk line with a
  space (MB-STATUS-1); a refusal's media type followed by 0xA0 (MB-STATUS-4); a JSON member
  given twice, a capabilities, echo or sandbox document after a byte order mark (MB-MULTI-4,
  MB-LIMIT-2, MB-TEST-2, MB-TEST-4); base64 with a pad bit set (MB-TEST-2, MB-MULTI-7,
  MB-MULTI-6); an XML index in other digits, an outcome followed by 0xA0, a phrase with DEL
  (MB-MULTI-3, MB-MULTI-6); an obsolete or misdated HTTP-date, a delay followed by 0xA0
  (MB-TEST-1, MB-METHOD-5, MB-LIMIT-6); a Batch-Summary with spaces around `=`
  (MB-STATUS-15); Preference-Applied naming batch-on-error=stopped (MB-PROC-6).
- early runs: a batch run while its client still holds back the rest of its content, once
  its close delimiter arrived (the CRLF, transport padding, epilogue, last-chunk or trailer
  section after it still to come) or once its last part's declared body arrived (MB-PROC-1).
- answers without content: a HEAD answered with content, read by the request pipelined behind
  it as its answer's first octets (MB-PIPE-1), and a 204 or 304 sent with content, read so by
  the GET sent behind it on its connection (MB-TEST-6).
- field value controls: a form feed at the end of a part field value or a vertical tab at its
  start taken off with the OWS, VT, FF and 0x1C-0x1F taken off both ends, a NUL inside let
  through, a value ending in obs-text refused (MB-PART-11); an inner HTAB turned into a space,
  0x85 and 0xA0 at a value's ends trimmed (MB-PART-8).

A check whose bug no relay plant can model has a group of its own with no plants, so that it is
still held to pass on the reference server: the time budget counted from the batch's first
octet (MB-SEC-1) cannot be planted in the relay, which reads every request whole before it
forwards it, so the server behind it never sees content arrive slowly; nor can a batch that
declares more octets than 32 bits count.

A group whose plants must each be caught by every catcher citing the requirement says
`each_catcher`; otherwise one catcher citing it is enough, as the published score counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pytest

from mixbatch_conformance.checks import select
from mixbatch_conformance.checks.limit_batch_extent import CASES as EXTENT_CASES
from mixbatch_conformance.checks.limit_octets import CASES as OCTET_CASES
from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Verdict
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants import (
    PLANTS,
    abort_stalls,
    absent_conditionals,
    absolute_form,
    advertised_and_counted,
    aggregate_dates,
    aggregate_recency,
    answer_sizes,
    answers_without_content,
    batch_client_fields,
    batch_response_fields,
    boundaries_and_empty_lines,
    boundary_neighbours,
    boundary_pools,
    budget_kinds,
    budget_leftovers,
    budget_scope,
    busy_connections,
    carried_content,
    chunked_connections,
    client_leaving,
    coded_limits,
    coding_stacks,
    collection_conditionals,
    collection_preconditions,
    collection_representations,
    conditional_evaluations,
    connection_readers,
    connection_requests,
    content_extent,
    created_validators,
    date_readings,
    declared_refusals,
    delimiter_collisions,
    discovery_requests,
    document_fields,
    early_refusal_connections,
    early_runs,
    echo_octets,
    element_and_preamble_readings,
    endpoint_resource,
    entry_fields,
    escaped_values,
    exact_values,
    expect_connections,
    failed_writes,
    fault_placement,
    field_kinds,
    field_line_octets,
    field_scope,
    field_value_controls,
    frame_readings,
    framing_spellings,
    get_content_and_ranges,
    hosts_and_entries,
    http10_forms,
    if_range_matches,
    list_and_tag_readings,
    lookalike_bodies,
    lookalike_readings,
    member_octets,
    mime_readings,
    mode_paths,
    mode_subrequests,
    mode_writers,
    no_transform_variants,
    obs_text,
    octet_units,
    order_and_isolation,
    origin_and_scope_readings,
    origin_ports,
    outcome_shapes,
    ows_and_head_sizes,
    padded_length_connections,
    parameter_readings,
    part_content_fields,
    part_length_numerals,
    part_security,
    plain_reference_syntax,
    policy_value_readings,
    precondition_order,
    problem_schema,
    reference_edges,
    reference_substitution,
    refusal_connections,
    refusal_documents,
    refusal_edges,
    refusal_list_neighbours,
    refusal_readings,
    refused_preconditions,
    registered_codings,
    request_spellings,
    request_variants,
    resolution,
    resource_edges,
    rollback_scope,
    safe_groups,
    sandbox_creation_names,
    sandbox_inputs,
    sandbox_member_ids,
    sandbox_names,
    sandbox_sequences,
    sender_grammar,
    singleton_lists,
    standalone_writers,
    status_by_parts,
    stored_controls,
    subrequest_readings,
    summary_counts,
    tag_list_readings,
    tag_strengths,
    targets_and_hosts,
    text_windows,
    trailer_fields,
    trim_and_rule_readings,
    unusable_references,
    valid_inputs,
    versions_statuses_weights,
    write_kinds,
)
from mixbatch_conformance.transport.relay import Relay
from tests.conformance._plants import (
    assert_catchers_pass_unplanted,
    assert_caught_under_requirement,
)
from tests.conformance.test_reference_server import (
    EXPECTED_NA,
    EXPECTED_STANDARD_NA,
    KNOWN_SERVER_BUGS,
    KNOWN_STANDARD_SERVER_BUGS,
)

BY_NAME = {p.name: p for p in PLANTS}
#: A refusal reading that takes the server's whole time budget to show.
BUDGET_PLANTS = ("atomic-batch-without-deadline",)


def _names(plants: Iterable[Mutation]) -> tuple[str, ...]:
    return tuple(p.name for p in plants)


@dataclass(frozen=True, slots=True)
class Group:
    name: str
    plants: tuple[str, ...]
    checks: tuple[str, ...] = ()
    #: The verdicts a catcher may end in; empty means the plant's own `caught_by`.
    verdicts: tuple[str, ...] = ()
    each_catcher: bool = True
    #: The tier the group's plants run in: "" (fast), "slow" or "deep".
    tier: str = ""
    #: Plants of a fast group that run in the slow tier.
    slow_plants: tuple[str, ...] = ()
    #: The verdicts a catcher may end in through the relay with nothing planted.
    unplanted: tuple[Verdict, ...] = (Verdict.PASS,)


#: A Batch-Summary trailer with spaces around its "=" (RFC 9651 §4.2.2 reads no such member).
SPACED_SUMMARY = "summary-trailer-spaced-equals"
#: The XML abort report naming a part: its catcher waits out a time budget.
XML_ABORT_NAMES_PART = "xml-abort-entry-names-a-part"
#: The XML abort report naming the batch endpoint in its DAV:href; the same catcher.
XML_ABORT_NAMES_ENDPOINT = "xml-abort-entry-names-endpoint"
XML_ABORT_PLANTS = (XML_ABORT_NAMES_PART, XML_ABORT_NAMES_ENDPOINT)
#: A member written without a media type, its type written null in the JSON form.
UNTYPED_MEMBER = "untyped-member-type-null-in-json"
#: An empty line after a POST's content read as a request line.
EMPTY_LINE_READ = "empty-line-read-as-request-line"
#: The CRLF after a chunk's data looked for in what one read brought, and chunked content
#: kept from one request to the next.
CHUNK_END_PEEKED = "chunk-end-peeked-in-read"
CHUNKED_KEPT = "chunked-content-kept-per-connection"
#: The empty lines before request lines bounded over a connection's life.
EMPTY_LINES_BOUNDED = "empty-lines-bounded-per-connection"
#: The empty line a later read brings taken for a request line.
EMPTY_LINE_LATER = "empty-line-in-later-read-read-as-request-line"
#: A batch ending near its budget stopped or refused for its time.
BUDGET_EDGES = ("delay-stopped-within-answer-margin", "slow-content-refused-408")
#: A GET with Content-Length: 0 to the batch endpoint refused as one with content.
EMPTY_LENGTH_GET = "get-with-empty-length-answered-400"

GROUPS = (
    Group(
        "batch-client-fields",
        _names(batch_client_fields.PLANTS),
        ("batch-answered-whatever-client-fields", "client-fields-not-inherited"),
        ("FAIL",),
    ),
    Group(
        "continue-after-failing-statuses",
        ("fatal-looking-status-stops-batch",),
        ("continue-after-every-failing-status", "continue-write-after-every-failing-status"),
        ("FAIL",),
    ),
    Group(
        "stop-whatever-parts-prefer",
        ("part-continue-lifts-stop",),
        ("stop-whatever-parts-prefer",),
        ("FAIL",),
    ),
    Group(
        "conditional-evaluations",
        _names(conditional_evaluations.PLANTS),
        ("conditional-rfc-reads", "conditional-rfc-writes"),
        ("FAIL",),
    ),
    Group(
        # RFC 9110 §5.6.7: three HTTP-date forms, the 50-year rule; §13.1.3/§13.1.4: a value
        # that is no HTTP-date ignored.
        "date-readings",
        _names(date_readings.PLANTS),
        ("conditional-date-forms", "collection-date-forms"),
        ("FAIL",),
    ),
    Group(
        # RFC 9110 §13.1.1/§13.1.2: If-Match and If-None-Match hold lists of entity-tags.
        "tag-list-readings",
        _names(tag_list_readings.PLANTS),
        (
            "conditional-tag-members-with-trailing-text",
            "conditional-tag-lists",
            "conditional-tag-lists-on-writes",
            "collection-conditional-tag-lists",
            "entity-tags-compared-exactly",
        ),
        ("FAIL",),
    ),
    Group(
        "field-scope",
        _names(field_scope.PLANTS),
        (
            "batch-answered-whatever-client-fields",
            "client-fields-not-inherited",
            "part-batch-rule-fields-as-alone",
            "continue-whatever-other-preferences",
            "prefer-several-preferences",
            "prefer-repeated-preference-first-counts",
        ),
        ("FAIL",),
    ),
    Group(
        "part-security",
        _names(part_security.PLANTS),
        (
            "forbidden-fields-any-value-refused",
            "credentials-inherited",
            "credentials-every-outer-line-inherited",
            "credentials-inherited-every-reference-form",
            "credentials-inherited-every-scheme",
            "same-origin-address-spellings-refused",
            "nested-batch-origin-spellings-refused",
        ),
        ("FAIL",),
        each_catcher=False,
    ),
    Group(
        "list-and-tag-readings",
        _names(list_and_tag_readings.PLANTS),
        (
            "implemented-mode-list-forms-run-as-plain",
            "unimplemented-mode-list-forms-refused",
            "sandbox-collection-strong-etag-same-octets",
            "mode-lookalike-values-refused",
        ),
        ("FAIL",),
    ),
    Group(
        "policy-value-readings",
        _names(policy_value_readings.PLANTS),
        (
            "prefer-unknown-value",
            "prefer-several-preferences",
            "mode-lookalike-values-refused",
        ),
        ("FAIL",),
    ),
    Group(
        "octet-units",
        _names(octet_units.PLANTS),
        tuple(slug for slug, *_ in OCTET_CASES),
        ("FAIL",),
        # Sends max_batch_bytes (64 MiB on the reference server) four times.
        slow_plants=("batch-bytes-counted-in-characters",),
    ),
    Group(
        "refusal-readings",
        _names(p for p in refusal_readings.PLANTS if p.name not in BUDGET_PLANTS),
        (
            "refusal-names-broken-requirement",
            "envelope-refusal-names-broken-requirement",
            "content-coding-list-members-refused",
            "content-coding-names-any-case",
            "test-resource-echo",
            "reject-space-line-before-empty-line",
            "reject-htab-line-before-empty-line",
            "reject-whitespace-run-line-before-empty-line",
            "reject-space-line-first-in-section",
            "reject-htab-line-first-in-section",
            "reject-space-line-between-fields",
            "collection-parts-are-members-alone",
        ),
        ("FAIL",),
    ),
    Group(
        "refusal-readings-budget",
        BUDGET_PLANTS,
        verdicts=("FAIL", "WARN"),
        each_catcher=False,
        tier="deep",
    ),
    Group(
        "subrequest-and-response",
        (
            "part-fields-copied-up",
            "empty-parts-unframed",
            "aggregate-etag-of-member-ids",
            "empty-credentials-taken-as-absent",
            "absolute-target-authority-as-written",
        ),
        each_catcher=False,
        tier="slow",
    ),
    Group(
        "input-classes",
        _names((*field_kinds.PLANTS, *resolution.PLANTS, *sandbox_inputs.PLANTS)),
        ("sandbox-write-without-content-type",),
        each_catcher=False,
        tier="slow",
    ),
    Group(
        "boundaries-empty-lines-and-sizes",
        (
            *_names(boundaries_and_empty_lines.PLANTS),
            "token-char-boundary-accepted",
            "response-body-cut-at-1mib",
            "port-read-as-integer",
            "port-read-by-leading-digits",
        ),
        (
            "bodyless-response-parts-keep-empty-line",
            "dot-segments-removed-in-every-reference-form",
            "bodies-across-sizes",
            "reject-boundary-token-tilde",
            "reject-target-port-underscore",
            "batch-authority-case-kept-for-parts",
        ),
        ("FAIL",),
    ),
    Group("write-kinds", _names(write_kinds.PLANTS), each_catcher=False, tier="slow"),
    Group("aggregate-dates", _names(aggregate_dates.PLANTS), tier="slow"),
    Group("aggregate-recency", _names(aggregate_recency.PLANTS), tier="slow"),
    Group(
        "reference-substitution",
        _names(reference_substitution.PLANTS),
        (
            "references-field-value-substituted",
            "references-location-in-field-value",
            "references-escape-literal",
            "references-not-in-content",
            "references-missing-field-skipped",
        ),
        ("FAIL",),
    ),
    Group(
        # Spec 7.7, MB-PROC-19, MB-PROC-20 and the href of 6.3/6.4 in a references batch.
        "reference-edges",
        _names(reference_edges.PLANTS),
        (
            "references-malformed-refused",
            "references-index-spellings",
            "references-field-name-spellings",
            "references-unresolved-named-alone",
            "references-target-refused-after-substitution",
            "references-unresolved-skipped",
            "references-part-fields-only",
            "references-href-by-form",
        ),
        ("FAIL",),
    ),
    Group(
        # MB-PROC-20: a reference to a part that "failed (status 400 or above), was skipped or
        # did not run" cannot be resolved, whatever fields that part's answer carries; one
        # answered below 400 did not fail, so a reference to it is resolved.
        "unusable-references",
        _names(unusable_references.PLANTS),
        ("references-to-failed-or-skipped-parts", "references-to-parts-below-400"),
        ("FAIL",),
    ),
    Group(
        # MB-PROC-18: "in a batch whose `Batch-Mode` does not list `references`, `$(` has no
        # special meaning".
        "plain-reference-syntax",
        _names(plain_reference_syntax.PLANTS),
        ("reference-syntax-plain-without-mode", "reference-syntax-plain-in-other-modes"),
        ("FAIL",),
    ),
    Group(
        "refusal-members",
        (
            "other-case-forbidden-method-refused",
            "other-case-method-refused-as-malformed",
            "method-refusal-as-text",
            "get-content-refusal-names-envelope",
            "opaque-scheme-named-malformed",
            "malformed-target-named-other-origin",
            "limit-refusal-named-framing",
            "unlocated-refusals-at-part-zero",
            "trailing-slash-routed-not-nested",
        ),
        (
            "forbidden-method-other-case-answered-in-part",
            "method-refusal-names-requirement",
            "unlocated-refusals-carry-no-location",
            "nesting-routed-spellings-refused",
            "limit-parts-one-over",
        ),
        ("FAIL",),
    ),
    Group(
        "targets-and-hosts",
        _names(targets_and_hosts.PLANTS),
        (
            "reject-target-fragment-only",
            "part-faults-refused-in-every-position",
            "refusal-names-broken-requirement",
            "dot-segments-removed-in-every-reference-form",
            "batch-host-invalid-refused",
            "batch-host-valid-literals-as-origin",
            "same-origin-default-port-spellings",
            "valid-reference-spellings-accepted",
        ),
        ("FAIL",),
    ),
    Group(
        "hosts-and-entries",
        _names(hosts_and_entries.PLANTS),
        (
            "batch-host-invalid-refused",
            "atomic-preference-applied-only-when-asked",
            "multistatus-entries-without-framing-fields",
            "capabilities-agree-with-answers",
            "chunked-faults-answered-as-content-length",
        ),
        ("FAIL",),
        # Waits out the declared whole-batch time limit in each 207 form (its catcher,
        # batch-abort-in-every-form, is shown passing unplanted through the relay).
        slow_plants=("json-abort-entry-names-a-part",),
    ),
    Group(
        "precondition-order",
        _names(precondition_order.PLANTS),
        (
            "conditional-combinations",
            "conditional-rfc-writes",
            "stop-at-failing-precondition",
            "error-policy-stop-resource-statuses",
            "stop-at-unknown-method-and-head-failure",
        ),
        ("FAIL",),
    ),
    Group(
        "advertised-and-counted",
        _names(advertised_and_counted.PLANTS),
        (
            "top-level-fields-without-created-resource",
            "decoded-codings-advertised",
            "limit-batch-bytes-one-over",
            "limit-part-fields-one-over-empty-values",
            "limit-part-fields-one-over-blank-values",
            "limit-part-fields-one-over-empty-repeated-name",
        ),
    ),
    Group(
        # MB-LIMIT-1: the limits a target claiming the profile publishes in its capabilities
        # document are the ones its batches are held to, whatever its description says.
        "published-limits",
        ("max-parts-published-below-enforced", "part-limits-published-swapped"),
        ("reject-too-many-parts", "limit-part-header-bytes-one-over"),
        ("FAIL",),
        each_catcher=False,
    ),
    Group(
        # MB-TEST-7 at the declared delay_max_ms.
        "declared-delay",
        ("delay-cap-unchecked", "delay-largest-refused"),
        ("delay-past-declared-largest",),
        ("FAIL",),
    ),
    Group("budget-from-arrival", (), ("batch-budget-counts-arrival",)),
    # The relay answers each request on an upstream connection of its own, so the idle time on
    # the client's connection never reaches the server; round 35's plant 17 proves the check.
    Group("budget-from-request", (), ("batch-budget-starts-with-its-request",)),
    # A batch declaring 4 GiB cannot pass through the relay, which reads requests whole:
    # tests/conformance/test_declared_sizes.py proves the check on a stand-in endpoint.
    Group("declared-sizes", (), ("limit-batch-bytes-declared-past-32-bits",)),
    # The relay reads each request whole and forwards it on its own, so it cannot leave content
    # in a connection: tests/conformance/test_resource_content_pipelining.py proves the check.
    Group("resource-content-pipelining", (), ("pipelining-behind-resource-requests-with-content",)),
    Group(
        "running-part-at-budget",
        ("running-part-answered-200-at-budget",),
        ("batch-abort-after-timeout",),
        ("FAIL",),
        # The catcher waits out the server's time budget once, its batches sent at once.
        tier="slow",
    ),
    Group(
        # MB-TEST-7: a server whose description declares `batch_timeout_ms` "MUST let a batch
        # run that many milliseconds, counted from the moment it began to receive the batch
        # request, before it stops the batch for its time".
        "declared-budget",
        ("batch-stopped-before-declared-budget",),
        ("batch-abort-after-timeout",),
        ("FAIL",),
        # The catcher waits out the server's time budget once, unplanted.
        tier="slow",
    ),
    Group(
        "budget-stand-ins",
        (
            "running-part-answered-500-at-budget",
            "running-part-answered-504-at-budget",
            "last-part-abort-left-out",
        ),
        (
            "batch-abort-after-timeout",
            "batch-abort-in-multistatus",
            "batch-abort-in-every-form",
            "batch-abort-under-stop",
            "batch-abort-over-http10",
        ),
        ("FAIL",),
        # Each catcher waits out the server's time budget.
        tier="slow",
    ),
    Group(
        # MB-INTER-6: "MUST answer 415 with an `Accept-Encoding` field naming the codings it
        # does decode".
        "registered-codings",
        _names(registered_codings.PLANTS),
        ("registered-codings-decoded-or-refused", "decoded-codings-advertised"),
        ("FAIL",),
    ),
    Group(
        "coding-lookalikes",
        (
            "mime-unencoded-names-as-identity",
            "transfer-coding-name-as-identity",
            "identity-parameters-ignored",
            "coding-lookalikes-skipped-in-modes",
        ),
        ("content-coding-lookalikes-refused",),
        ("FAIL",),
    ),
    Group(
        # MB-INTER-6: a server decoding each coding listed removes them in the reverse of the
        # order listed and answers the batch as the same content unencoded. The catcher is N/A
        # on the reference server and through the relay unplanted, which decode no coding.
        "content-coding-stacks",
        _names(coding_stacks.STACK_PLANTS),
        verdicts=("FAIL",),
        unplanted=(Verdict.NA,),
    ),
    Group(
        # MB-INTER-6 with RFC 1952 §2.2: gzip content is "a series of 'members'". The catcher
        # is N/A on the reference server and through the relay unplanted, which decode no
        # coding; the plant decodes gzip, to its first member only.
        "gzip-members",
        _names(coding_stacks.MEMBER_PLANTS),
        verdicts=("FAIL",),
        unplanted=(Verdict.NA,),
    ),
    Group(
        # MB-INTER-5 with RFC 9112 §7: "All transfer-coding names are case-insensitive".
        "chunked-name-case",
        _names(coding_stacks.CASE_PLANTS),
        ("chunked-coding-name-any-case",),
        ("FAIL",),
    ),
    Group(
        "budget-client-fields",
        (
            "budget-lengthened-by-prefer-wait",
            "budget-lengthened-by-respond-async",
            "budget-lengthened-by-timeout-fields",
            "budget-lengthened-by-wait-in-atomic",
        ),
        ("batch-budget-not-raised-by-client-fields",),
        ("WARN",),
        # Each run waits out the server's time budget a few times.
        tier="slow",
    ),
    Group(
        # MB-PROC-2: "MUST produce the effects and the responses of a batch as if it had run the
        # parts one at a time"; MB-PROC-16: "MUST have committed the effects of every part
        # before it sends the first response part, so that every request it receives after
        # that observes all of them".
        "client-leaving",
        _names(client_leaving.PLANTS),
        ("answered-writes-outlive-client-leaving", "atomic-commit-outlives-client-leaving"),
        ("FAIL",),
        # Each catcher waits out a slow part after the client leaves, three times.
        tier="slow",
    ),
    Group(
        "order-and-isolation",
        _names(order_and_isolation.PLANTS),
        (
            "atomic-rollback-unseen-by-every-reader",
            "atomic-batches-queued-undo-only-their-own",
            "safe-parts-see-earlier-writes",
            "parts-with-content-on-any-method-as-alone",
        ),
        ("FAIL",),
        tier="slow",
    ),
    Group(
        # MB-PROC-15: "No other request observes ... any effect of an atomic batch that does
        # not commit", a resource the batch never named included.
        "rollback-scope",
        _names(rollback_scope.PLANTS),
        ("atomic-failure-undoes-writes",),
        ("FAIL",),
    ),
    Group(
        # MB-PROC-15: a standalone write sent while an atomic batch runs neither meets its
        # uncommitted write nor is undone by its rollback.
        "standalone-writers",
        _names(standalone_writers.PLANTS),
        ("atomic-rollback-spares-standalone-writes",),
        ("FAIL",),
    ),
    Group(
        # MB-PIPE-1: behind a request that carries Expect: 100-continue, only a refusal given
        # before a 100 may end the connection, and marked.
        "expect-connections",
        _names(expect_connections.PLANTS),
        ("pipelining-behind-expect-continue",),
        ("FAIL",),
    ),
    Group(
        # MB-PROC-9, MB-STATUS-7: If-Match compares strongly, so a weak current tag fails it
        # in either spelling.
        "tag-strengths",
        _names(tag_strengths.PLANTS),
        ("entity-tag-strength-compared", "collection-tag-strength-compared"),
        ("FAIL",),
    ),
    Group(
        # MB-STATUS-1: a batch answered before a batch stopped by its budget is answered
        # after it too; the catcher waits out the budget once and the stalled batch's wait.
        "budget-leftovers",
        _names(budget_leftovers.PLANTS),
        ("batch-abort-after-timeout",),
        ("FAIL",),
        tier="slow",
    ),
    Group(
        "fault-placement",
        _names(fault_placement.PLANTS),
        (
            "part-faults-refused-in-every-position",
            "envelope-faults-refused-in-every-mode",
            "repeated-part-fields-placed-at-repeating-line",
            "delimiter-faults-placed-in-every-position",
            "section-limits-placed-at-section-start",
        ),
        ("FAIL",),
    ),
    Group(
        "mode-writers",
        _names(mode_writers.PLANTS),
        (
            "batch-response-header-in-every-mode",
            "accept-read-alike-in-every-mode",
            "outcome-parts-echo-every-reference-form",
        ),
    ),
    Group(
        "mode-paths",
        _names(mode_paths.PLANTS),
        (
            "policy-and-mode-not-kept-for-later-batches",
            "subrequest-fields-in-every-mode",
            "late-fault-runs-nothing-on-every-path",
            "parts-streamed-on-every-path",
            "parts-streamed-in-every-form",
            "sub-response-fields-not-at-top-in-every-mode",
            "atomic-with-stop-preference",
            "no-transform-in-every-mode",
        ),
        slow_plants=(
            "answer-held-under-stop",
            "answer-held-for-writes",
            "answer-held-for-chunked-batch",
            "answer-held-when-closing",
            "answer-held-after-bodyless-part",
            "gzip-answer-compressor-unflushed",
            "deflate-answer-compressor-unflushed",
            "json-form-held-whole",
            "xml-form-held-whole",
        ),
    ),
    Group(
        "endpoint-and-resource-edges",
        tuple(
            n
            for n in _names(endpoint_resource.PLANTS)
            if n not in (EMPTY_LENGTH_GET, *BUDGET_EDGES)
        ),
        (
            "method-not-allowed",
            "method-refusal-names-requirement",
            "options-capabilities",
            "options-with-content-answered",
            "test-resource-random",
            "test-resource-delay",
            "test-resource-delay-counted-from-part-start",
            "chunked-batch-trailers-and-extensions",
            "endpoint-methods-other-case-refused",
            "unknown-method-refused",
        ),
    ),
    Group(
        # MB-TEST-7: "a delayed part of a batch that ends within the declared budget is
        # answered as above", and the budget counts reception: its catcher waits most of the
        # budget, up to three times.
        "budget-edges",
        BUDGET_EDGES,
        ("delay-ending-inside-budget-answered",),
        ("FAIL",),
        tier="slow",
    ),
    # Caught by both checks that send it; the 405 of one cites MB-METHOD-2, the other compares
    # it with the GET without the field under MB-METHOD-3.
    Group(
        "get-with-empty-length",
        (EMPTY_LENGTH_GET,),
        ("method-not-allowed", "batch-endpoint-get-with-content"),
        ("FAIL",),
        each_catcher=False,
    ),
    Group(
        "refusal-documents",
        _names(refusal_documents.PLANTS),
        (
            "refusals-of-obs-text-inputs-are-utf8-problems",
            "refusal-documents-valid-in-every-form",
            "limit-parts-one-over",
            "limit-part-fields-one-over",
            "limit-part-header-bytes-one-over",
            "batch-abort-after-timeout",
            "batch-abort-under-stop",
        ),
        slow_plants=("abort-document-by-hand",),
    ),
    Group(
        "parameter-readings",
        _names(parameter_readings.PLANTS),
        (
            "accept-media-type-empty-parameter-before-boundary",
            "accept-media-type-empty-parameter-after-boundary",
            "accept-media-type-empty-parameters-with-ows",
            "accept-boundary-after-quoted-pair-quote-parameter",
            "accept-boundary-after-quoted-pair-backslash-parameter",
            "reject-boundary-inside-quoted-parameter",
            "reject-boundary-inside-quoted-parameter-after-quoted-pair",
            "reject-boundary-quoted-pair-backslash",
            "reject-media-type-parameter-without-equals-after-boundary",
            "reject-media-type-parameter-without-equals-before-boundary",
            "reject-media-type-parameter-without-name",
            "reject-media-type-parameter-without-name-after-boundary",
            *parameter_readings.EQUALS_WHITESPACE_CASES,
            "accept-quality-values",
            "accept-unparsed-member-beside-valid",
            "accept-lookalike-ranges-admit-no-form",
        ),
        ("FAIL",),
    ),
    Group(
        "collection-conditionals",
        _names(collection_conditionals.PLANTS),
        (
            "collection-get-conditional",
            "collection-head-and-empty-conditional",
            "collection-retrieval-in-part",
            "conditional-parts-after-writes",
            "collection-get-with-content",
        ),
        ("FAIL",),
    ),
    Group(
        "collection-preconditions",
        _names(collection_preconditions.PLANTS),
        (
            "conditional-post-to-collection",
            "conditional-post-compares-selected-representation",
            "collection-head-and-empty-conditional",
            "collection-retrieval-in-part",
        ),
        ("FAIL",),
    ),
    Group(
        "sandbox-sequences",
        _names(sandbox_sequences.PLANTS),
        ("sandbox-collection-write-sequences", "property-sandbox-state-machine"),
        ("FAIL",),
    ),
    Group(
        # MB-TEST-4: "for any other media type, the same octets"; MB-METHOD-4: "each part
        # carries what a `GET` of that member alone answers"; MB-MULTI-5: each form carries
        # "its body".
        "member-octets",
        tuple(n for n in _names(member_octets.PLANTS) if n != UNTYPED_MEMBER),
        ("sandbox-member-octets-every-path",),
        ("FAIL",),
    ),
    Group(
        # MB-MULTI-4: the JSON form is a document the schema admits, each field value a string.
        # The reference server's sandbox refuses untyped content, so the catcher is N/A on it
        # and through the relay unplanted; the plant stores such content in the relay.
        "untyped-members",
        (UNTYPED_MEMBER,),
        verdicts=("FAIL",),
        unplanted=(Verdict.NA,),
    ),
    Group(
        # MB-MULTI-7: "in `body`, as a JSON string, when the body octets are valid UTF-8 ...;
        # otherwise in `body_base64`"; MB-MULTI-5: each form carries "its body".
        "text-windows",
        _names(text_windows.PLANTS),
        ("multistatus-body-members-whole-body",),
        ("FAIL",),
    ),
    Group(
        "collection-representations",
        _names(collection_representations.PLANTS),
        (
            "collection-retrieval-same-under-request-variants",
            "sandbox-collection-unusual-members-as-alone",
            "collection-tag-per-representation",
            "collection-parts-ignore-member-conditions",
            "collection-tag-strength-compared",
        ),
        ("FAIL",),
    ),
    Group(
        "valid-inputs",
        _names(valid_inputs.PLANTS),
        (
            "target-query-octets-reach-resource",
            "target-path-octets-as-alone",
            "valid-reference-spellings-accepted",
            "content-id-at-header-limit",
            "accept-long-content-id",
            "accept-http-method-long-token",
            "accept-close-padding-then-epilogue",
            "accept-body-holding-bare-boundary",
            "accept-field-value-leading-obs-text",
            "accept-binary-preamble-and-epilogue",
        ),
    ),
    Group(
        "outcome-shapes",
        _names(outcome_shapes.PLANTS),
        (
            "outcome-shapes-at-every-position",
            "pipelining-behind-limit-refusals",
            "pipelining-behind-every-answer",
            "refusal-documents-valid-in-every-form",
        ),
        ("FAIL",),
        # Pipelines a part body over max_part_bytes (16 MiB on the reference server) twice,
        # and every kind of batch answer in every form.
        slow_plants=(
            "limit-refusal-content-read-as-next-request",
            "rolled-back-answer-closes-connection",
        ),
    ),
    Group(
        "exact-values",
        _names(exact_values.PLANTS),
        (
            "status-codes-reported-exactly",
            "multistatus-status-codes",
            "atomic-failure-outcomes",
            "outcome-shapes-at-every-position",
            "atomic-failing-edges",
            "atomic-with-stop-preference",
            "rolled-back-validators-kept",
            "stop-at-failing-precondition",
            "entity-tags-compared-exactly",
            "collection-entity-tags-compared-exactly",
        ),
        ("FAIL",),
    ),
    Group(
        "summary-counts",
        _names(summary_counts.PLANTS),
        ("batch-summary-trailer", "multistatus-json-summary"),
        ("FAIL",),
        # The relay drops the upstream's trailers, so unplanted the trailer check is N/A.
        unplanted=(Verdict.PASS, Verdict.NA),
    ),
    Group(
        "connection-requests",
        _names(connection_requests.PLANTS),
        ("pipelined-requests-answered-apart", "kept-connection-requests-answered-apart"),
        ("FAIL",),
    ),
    Group(
        "connection-readers",
        tuple(
            n
            for n in _names(connection_readers.PLANTS)
            if n
            not in (
                EMPTY_LINE_READ,
                EMPTY_LINES_BOUNDED,
                EMPTY_LINE_LATER,
                CHUNK_END_PEEKED,
                CHUNKED_KEPT,
            )
        ),
        ("pipelining-across-writes",),
        ("FAIL",),
    ),
    Group(
        # MB-PIPE-4: "SHOULD ignore an empty line (CRLF) received after the content of a
        # `POST` request": a WARN, a FAIL under --strict.
        "empty-lines",
        (EMPTY_LINE_READ, EMPTY_LINES_BOUNDED, EMPTY_LINE_LATER),
        ("pipelined-request-after-empty-line",),
        ("WARN",),
    ),
    Group(
        # MB-STATUS-3: 431 when "a part header section exceeds max_part_header_bytes", however
        # far: a section past 2^16 octets that a 16-bit count wraps.
        "section-wraps",
        ("header-bytes-counted-in-16-bits",),
        ("limit-part-header-bytes-past-2-16",),
        ("FAIL",),
    ),
    Group(
        # MB-STATUS-6: a batch stopped after its answer began ends with the abort part and the
        # close delimiter, or a closed connection (spec 5.4), never an answer left open.
        "abort-stalls",
        _names(abort_stalls.PLANTS),
        ("batch-abort-after-timeout",),
        ("FAIL",),
        tier="slow",
    ),
    Group(
        # MB-PIPE-1: a connection ended after a refusal by declared length was marked
        # Connection: close. Through the relay unplanted the relay waits for the declared
        # content, so the catcher is N/A there.
        "declared-refusals",
        _names(declared_refusals.PLANTS),
        verdicts=("FAIL",),
        unplanted=(Verdict.NA,),
    ),
    Group(
        # MB-SEC-3: no NUL in a part field, whatever a resource stored; the reference server
        # refuses NUL alone, so the catcher is N/A on it and through the relay unplanted.
        "stored-controls",
        _names(stored_controls.PLANTS),
        verdicts=("FAIL",),
        unplanted=(Verdict.NA,),
    ),
    Group(
        # MB-PART-8: "the part body is its content", whatever it looks like and however many
        # reads carry it.
        "lookalike-bodies",
        _names(lookalike_bodies.PLANTS),
        ("framing-lookalike-bodies-arrive-whole",),
        ("FAIL",),
    ),
    Group(
        # MB-WIRE-5: a boundary "fresh for each message", a SHOULD: a WARN.
        "boundary-pools",
        _names(boundary_pools.PLANTS),
        ("response-boundaries-fresh-over-many",),
        ("WARN",),
    ),
    Group(
        # MB-RESP-1: "exactly one response part for each request part, in request order",
        # however many consecutive safe parts a server runs at once (MB-PROC-3).
        "safe-groups",
        _names(safe_groups.PLANTS),
        ("consecutive-safe-parts-all-answered",),
        ("FAIL",),
    ),
    Group(
        # MB-INTER-5: a chunked batch is accepted as the same content framed by Content-Length,
        # whatever reads carry its chunks.
        "chunk-reads",
        (CHUNK_END_PEEKED, CHUNKED_KEPT),
        ("chunked-content-split-anywhere-accepted",),
        ("FAIL",),
    ),
    Group(
        # MB-WIRE-22: "read a part's `Content-Length` numeral of up to 18 digits as the decimal
        # number it is, leading zeros included, and answer a longer numeral it does not read so
        # with 400, never with a connection closed without an answer".
        "part-length-numerals",
        _names(part_length_numerals.PLANTS),
        (
            "part-length-numerals-read-as-numbers",
            "reject-content-length-wrapped-at-32-bits-to-body-length",
        ),
        ("FAIL",),
    ),
    Group(
        "busy-connections",
        _names(busy_connections.PLANTS),
        ("pipelining-behind-budget-refusal",),
        ("FAIL",),
        # Holds the budget's batches for a second, each plant twice (unplanted, then planted).
        slow_plants=_names(busy_connections.PLANTS),
    ),
    Group(
        "lookalike-readings",
        _names(lookalike_readings.PLANTS),
        (
            "accept-boundary-beginning-with-hyphen",
            "accept-boundary-beginning-with-two-hyphens",
            "accept-boundary-ending-in-colon",
            "accept-boundary-ending-in-equals",
            "accept-boundary-ending-in-hyphen",
            "accept-boundary-ending-in-hyphens-body-lines",
            "accept-boundary-ending-in-two-hyphens",
            "accept-boundary-ending-in-two-hyphens-padded",
            "accept-boundary-ending-in-two-hyphens-quoted",
            "accept-boundary-one-hyphen",
            "accept-boundary-one-special-char",
            "accept-boundary-seventy-hyphens",
            "accept-boundary-three-hyphens",
            "accept-boundary-two-hyphens",
            "reject-content-id-empty-beside-content-location",
            "reject-content-id-empty-reference-beside-content-location",
            "reject-content-id-missing-beside-bracketed-content-location",
            "reject-content-id-missing-beside-content-base",
            "reject-content-id-missing-beside-content-id-suffixed",
            "reject-content-id-missing-beside-content-location",
            "reject-content-id-missing-beside-content-underscore-id",
            "reject-content-id-missing-beside-contentid",
            "reject-content-id-missing-beside-disposition-name",
            "reject-content-id-missing-beside-http-target",
            "reject-content-id-missing-beside-location",
            "reject-content-id-missing-beside-message-id",
            "reject-content-id-missing-in-later-part-beside-content-location",
            "reject-missing-close-delimiter",
            "reject-unclosed-after-dash-boundary",
            "reject-unclosed-after-delimiter-line",
            "reject-unclosed-after-first-delimiter-line",
            "reject-unclosed-after-one-hyphen",
            "reject-unclosed-after-transport-padding",
            "reject-unclosed-in-body",
            "reject-unclosed-in-body-after-boundary-prefix",
            "reject-unclosed-in-body-ending-in-crlf",
            "reject-unclosed-in-header-section",
            "reject-unclosed-in-later-body",
            "reject-unclosed-in-later-header-section",
            "reject-unclosed-inside-part-body",
            "reject-unclosed-inside-part-header",
            "reject-unclosed-short-content-length",
        ),
        ("FAIL",),
    ),
    Group(
        "origin-ports",
        _names(origin_ports.PLANTS),
        ("same-origin-default-port-spellings",),
        ("FAIL",),
    ),
    Group(
        "document-fields",
        _names(document_fields.PLANTS),
        ("top-level-fields-independent-of-parts", "sub-response-fields-not-at-top"),
        ("FAIL",),
    ),
    Group(
        "origin-and-scope-readings",
        _names(origin_and_scope_readings.PLANTS),
        (
            "reject-target-host-percent-encoded",
            "reject-target-port-plus-2-16",
            "reject-target-port-plus-2-32",
            "credential-companion-fields-not-inherited",
            "client-fields-not-inherited",
            "content-coded-batch-runs-nothing",
            "pipelining-behind-every-answer",
            "endpoint-methods-other-case-refused",
            "sandbox-collection-strong-etag-across-rollback",
            "top-level-fields-without-created-resource",
        ),
        ("FAIL",),
    ),
    Group(
        "refusal-connections",
        _names(refusal_connections.PLANTS),
        ("pipelining-behind-limit-refusals-read-whole",),
        ("FAIL",),
        # Holds the content of each size refusal back for a second, and sends a part body over
        # max_part_bytes (16 MiB on the reference server), unplanted and planted.
        tier="slow",
    ),
    Group(
        "chunked-connections",
        _names(chunked_connections.PLANTS) + _names(padded_length_connections.PLANTS),
        ("pipelining-behind-every-answer",),
        ("FAIL",),
        # Pipelines every kind of batch answer in every form, an abort among them.
        tier="slow",
    ),
    Group(
        # Spec 3.1.1, 3.2.2, 4.1, 5.3, 6.1 and 11 as draft-02 settles them: each plant breaks the
        # one reading the text forces, or reads outside the readings it allows.
        "frame-readings",
        tuple(n for n in _names(frame_readings.PLANTS) if n not in XML_ABORT_PLANTS),
        tuple(
            sorted(
                {
                    c
                    for p in frame_readings.PLANTS
                    if p.name not in XML_ABORT_PLANTS
                    for c in p.catchers
                }
            )
        ),
        ("FAIL",),
    ),
    Group(
        # Spec 6.3: the XML abort report has no mb:content-id and no DAV:href or an empty one.
        "frame-readings-abort",
        XML_ABORT_PLANTS,
        ("batch-abort-in-every-form",),
        ("FAIL",),
        # The catcher waits out the server's time budget once, its forms sent at once.
        tier="slow",
    ),
    Group(
        "early-refusal-connections",
        _names(early_refusal_connections.PLANTS),
        (
            "pipelining-behind-early-refusals-of-long-content",
            "pipelining-behind-early-refusals-of-chunked-content",
        ),
        ("FAIL",),
    ),
    Group(
        # MB-PROC-1: "A server MUST NOT run any part before it has received the whole batch
        # request and validated its whole envelope".
        "early-runs",
        _names(early_runs.PLANTS),
        (
            "batch-runs-nothing-before-content-whole",
            "chunked-batch-runs-nothing-before-content-whole",
        ),
        ("FAIL",),
    ),
    Group(
        "content-extent",
        _names(content_extent.PLANTS),
        tuple(slug for slug, *_ in EXTENT_CASES),
        ("FAIL",),
        # Sends max_batch_bytes (64 MiB on the reference server) per case.
        tier="slow",
    ),
    Group(
        # Spec 9.1 and 5.3: the limits and the offsets count the content "after any content
        # coding is removed". The reference server decodes no coding, so the catchers are N/A on
        # it and through the relay unplanted; each plant decodes gzip and deflate in the relay.
        "coded-limits",
        _names(coded_limits.PLANTS),
        verdicts=("FAIL",),
        unplanted=(Verdict.NA,),
        # Their catchers decode max_batch_bytes (64 MiB) or max_part_bytes (16 MiB) per case.
        slow_plants=(
            "coded-cap-overflow-refused-malformed",
            "coded-batch-held-to-coded-octets",
            "coded-gzip-members-bounded-alone",
            "coded-part-fields-unheld",
            "coded-part-bytes-unheld",
        ),
    ),
    Group(
        "request-spellings",
        _names(request_spellings.PLANTS),
        (
            "http10-batch-in-every-form",
            "echo-target-path-octets-as-received",
            "nesting-unrouted-lookalikes-run",
            "nesting-routed-spellings-refused",
        ),
        ("FAIL",),
    ),
    Group(
        "versions-statuses-weights",
        _names(versions_statuses_weights.PLANTS),
        (
            "parts-streamed-over-http10",
            "batch-abort-over-http10",
            "statuses-carried-as-alone",
            "accept-weight-spellings",
        ),
        # Each plant's own verdicts: a held answer breaks a SHOULD (WARN unless strict).
        slow_plants=("http10-answer-held", "http10-abort-without-close-delimiter"),
    ),
    Group(
        "absolute-form",
        _names(absolute_form.PLANTS),
        ("batch-absolute-form-as-origin-form", "test-resource-echo-absolute-form-authority"),
        ("FAIL",),
    ),
    Group(
        "request-variants",
        _names(request_variants.PLANTS),
        ("request-variants-answered-as-written",),
        ("FAIL",),
    ),
    Group(
        "discovery-requests",
        _names(discovery_requests.PLANTS),
        ("capabilities-whatever-request-fields",),
        ("FAIL",),
    ),
    Group(
        "element-and-preamble-readings",
        _names(element_and_preamble_readings.PLANTS),
        (
            "mode-lookalike-values-refused",
            "content-coding-lookalikes-refused",
            *element_and_preamble_readings.LEADING_CASES,
            "accept-byte-order-mark-then-dash-boundary-in-preamble",
            "accept-utf16-byte-order-mark-then-dash-boundary-in-preamble",
            "accept-hyphen-then-dash-boundary-in-preamble",
            "reject-first-line-dash-boundary-then-bchar",
            "reject-preamble-line-dash-boundary-then-bchar",
            "accept-part-after-empty-epilogue-line",
            "accept-byte-order-mark-then-part-in-epilogue",
        ),
        ("FAIL",),
    ),
    Group(
        "mime-readings",
        _names(mime_readings.PLANTS),
        (
            "reject-boundary-extended-parameter",
            "reject-boundary-extended-parameter-without-charset",
            "reject-boundary-continued-parameter",
            "accept-boundary-beside-extended-parameter",
            "accept-boundary-after-extended-parameter-same-value",
            "accept-boundary-beside-continued-parameter",
            "reject-media-type-comment-after-subtype",
            "reject-boundary-comment-after-value",
            "reject-media-type-comment-before-parameter",
            "accept-boundary-encoded-word-quoted",
            "reject-content-length-trailing-comment",
            "reject-content-length-leading-comment",
            "reject-content-length-quoted",
            "reject-content-length-encoded-word",
            "reject-content-length-plus-inner-space",
            "reject-content-length-inner-space",
            "reject-content-length-signed",
            "reject-http-method-trailing-comment",
            "reject-http-method-leading-comment",
            "reject-http-method-encoded-word",
            "reject-content-id-leading-comment",
            "reject-content-id-encoded-word",
            "vector-content-id-with-comment",
            "accept-part-content-type-with-comment",
        ),
        ("FAIL",),
    ),
    Group(
        # MB-PART-2: "more than one, or one whose value is not a `token`"; MB-PART-4, MB-WIRE-20
        # and MB-WIRE-4 fix Content-Id, a part Content-Length and the batch Content-Type to one
        # value each, not a list.
        "singleton-lists",
        _names(singleton_lists.PLANTS),
        (
            "reject-http-method-list",
            "reject-http-method-list-same-member",
            "reject-http-method-list-trailing-comma",
            "reject-http-method-list-leading-comma",
            "reject-http-method-two-tokens",
            "reject-http-method-parameter",
            "reject-content-id-list",
            "reject-content-id-list-same-member",
            "reject-content-id-list-trailing-comma",
            "reject-content-id-list-leading-comma",
            "reject-content-length-list",
            "reject-content-length-list-without-ows",
            "reject-content-length-list-trailing-comma",
            "reject-content-length-list-leading-comma",
            "reject-media-type-list-after-batch-type",
            "reject-media-type-list-batch-type-twice",
            "reject-media-type-list-trailing-comma",
            "reject-media-type-list-before-batch-type",
        ),
        ("FAIL",),
    ),
    Group(
        # MB-MULTI-1: "MUST choose `multipart/mixed` when `Accept` is absent or empty", by the
        # request's Accept, whatever its HTTP version.
        "http10-forms",
        _names(http10_forms.PLANTS),
        ("http10-accept-chooses-as-over-http11",),
        ("FAIL",),
    ),
    Group(
        # MB-TEST-3: "a `PUT` to a member that does not exist with 201 (it created the member) or
        # with 404 or 405 (it refused)", for "any such id" of "1 to 64 characters of `A-Z a-z
        # 0-9 - _`"; MB-TEST-4: a member reads "what was last written to it". The plants make
        # the sandbox take such PUTs in a store that takes some ids for others.
        "sandbox-member-ids",
        tuple(n for n in _names(sandbox_member_ids.PLANTS) if n != "sandbox-ids-fold-case"),
        ("sandbox-member-ids-confusable",),
        ("FAIL",),
    ),
    Group(
        # The catcher is N/A on the reference server and through the relay unplanted: its
        # sandbox refuses a PUT to an absent member, so no id is created to differ in case from.
        "sandbox-member-ids-case",
        ("sandbox-ids-fold-case",),
        verdicts=("FAIL",),
        unplanted=(Verdict.NA,),
    ),
    Group(
        # MB-TEST-3: a POST answers "by creating a new member". The reference server's sandbox
        # refuses a PUT to an absent member, so unplanted the catcher runs its POSTs and DELETEs
        # alone; the second plant makes the sandbox take such PUTs.
        "sandbox-creation-names",
        _names(sandbox_creation_names.PLANTS),
        ("property-sandbox-state-machine", "sandbox-creations-after-deletes"),
        ("FAIL",),
    ),
    Group(
        "sandbox-names",
        _names(sandbox_names.PLANTS),
        # The reference server's sandbox refuses a PUT to an absent member (MB-TEST-3 allows
        # 404), so the catcher is N/A on it and through the relay unplanted; the plant makes
        # the sandbox take such PUTs, and the catcher must fail citing MB-TEST-3.
        verdicts=("FAIL",),
        unplanted=(Verdict.NA,),
    ),
    Group(
        # MB-WIRE-6: the sender looks for the dash-boundary "at the start of a body and after
        # every LF in it, with or without a CR before the LF". The reference server's sandbox
        # keeps only JSON documents, which cannot hold a delimiter, so the catcher is N/A on it
        # and through the relay unplanted; the plants make the sandbox keep other content and
        # write it into the batch's answer past a planted check that misses a place.
        "delimiter-collisions",
        _names(delimiter_collisions.PLANTS),
        verdicts=("FAIL",),
        tier="slow",
        unplanted=(Verdict.NA,),
    ),
    Group(
        # MB-STATUS-1: a batch whose framing or type field is named in another case, with
        # spaces and tabs around its value (RFC 9110 §5.1, RFC 9112 §5), is well-formed.
        "framing-spellings",
        _names(framing_spellings.PLANTS),
        ("batch-framing-fields-any-case-and-ows",),
        ("FAIL",),
    ),
    Group(
        # MB-WIRE-6 binds a collection retrieval's writer too; the catcher is N/A on the
        # reference server and through the relay unplanted, whose sandbox keeps only JSON.
        "delimiter-collisions-retrieval",
        _names(delimiter_collisions.RETRIEVAL_PLANTS),
        verdicts=("FAIL",),
        unplanted=(Verdict.NA,),
    ),
    Group(
        # MB-STATUS-13: a limit exceeded beside a malformed envelope, answered with the status of
        # one fault and the document of the other, whichever way the server came to it.
        "fault-pair-documents",
        (
            "declared-length-413-names-mismatch",
            "header-431-names-bad-line",
            "parts-413-names-malformed-part",
            "mismatch-400-raised-to-413",
            "bad-line-400-raised-to-431",
            "malformed-part-400-raised-to-413",
        ),
        ("fault-pairs-limit-beside-malformed",),
        ("FAIL",),
    ),
    Group(
        # The same over max_batch_bytes: each batch sends the reference server's 64 MiB.
        "fault-pair-documents-batch-bytes",
        ("batch-bytes-413-names-unclosed", "unclosed-400-raised-to-413"),
        ("fault-pairs-batch-bytes-beside-unclosed",),
        ("FAIL",),
        tier="slow",
    ),
    Group(
        "problem-schema",
        _names(problem_schema.PLANTS),
        ("budget-refusal-retry-after", "method-refusal-names-requirement"),
        ("FAIL",),
        # Holds the budget's batches for a second, each plant twice (unplanted, then planted).
        slow_plants=("busy-problem-names-unknown-limit",),
    ),
    Group(
        # Vary and no-transform are judged on every batch response whichever check sent the
        # batch: checks that cite neither catch a plant that drops them from one kind of batch.
        "batch-response-fields",
        _names(batch_response_fields.PLANTS),
        (
            "http10-batch-in-every-form",
            "error-policy-stop-failing-edges",
            "atomic-failure-outcomes",
            "pipelining-in-order",
        ),
    ),
    Group(
        # MB-WIRE-13: content cut after a CR, at every place a delimiter line could begin or
        # end, has no close delimiter.
        "content-cut-after-cr",
        ("content-ending-in-cr-taken-as-close",),
        (
            "reject-unclosed-after-dash-boundary-cr",
            "reject-unclosed-after-padding-cr",
            "reject-unclosed-after-one-hyphen-cr",
            "reject-unclosed-after-delimiter-line-cr",
            "reject-unclosed-in-body-ending-cr",
            "reject-first-delimiter-line-cut-after-cr",
        ),
        ("FAIL",),
    ),
    Group(
        "no-transform-variants",
        _names(no_transform_variants.PLANTS),
        # MB-INTER-4 is a SHOULD: a plant is caught by a WARN (FAIL under --strict).
        ("no-transform-under-request-variants",),
    ),
    Group(
        "if-range-matches",
        _names(if_range_matches.PLANTS),
        ("conditional-if-range-ignores-range-or-serves-it",),
        ("FAIL",),
    ),
    Group(
        "scheme-lookalikes",
        ("colon-before-slash-read-as-scheme",),
        ("scheme-lookalikes-run",),
        ("FAIL",),
    ),
    Group(
        "absent-conditionals",
        _names(absent_conditionals.PLANTS),
        # The reference server's sandbox refuses a PUT to an absent member (MB-TEST-3 allows
        # 404), so the catcher is N/A on it and through the relay unplanted; the plant makes
        # the sandbox take such PUTs, and the catcher must fail citing MB-PROC-9.
        verdicts=("FAIL",),
        unplanted=(Verdict.NA,),
    ),
    Group(
        "entry-fields",
        _names(entry_fields.PLANTS),
        ("multistatus-entry-fields-as-sub-response",),
        ("FAIL",),
    ),
    Group(
        "resource-edges",
        _names(resource_edges.PLANTS),
        ("random-sizes-at-declared-largest", "test-resource-status", "bodies-across-sizes"),
        ("FAIL",),
    ),
    Group(
        "echo-octets",
        _names(echo_octets.PLANTS),
        (
            "echo-field-octets-as-sent",
            "echo-authority-as-addressed",
            "echo-method-case-as-received",
            "echo-target-path-octets-as-received",
            "test-resource-echo",
        ),
        ("FAIL",),
    ),
    Group(
        "obs-text-readings",
        tuple(n for n in _names(obs_text.PLANTS) if n != "sub-response-obs-text-fields-dropped"),
        (
            "accept-media-type-quoted-parameter-obs-text",
            "accept-media-type-quoted-parameter-obs-text-before-boundary",
            "accept-media-type-quoted-parameter-utf8-octets",
            "accept-boundary-quoted-beside-obs-text-parameter",
            "prefer-several-preferences",
            "accept-quality-values",
            "multistatus-json-body-members",
        ),
        ("FAIL",),
    ),
    Group(
        "obs-text-sub-response-fields",
        ("sub-response-obs-text-fields-dropped",),
        # The reference server's sandbox answers every member as application/json, so the
        # catcher is N/A on it and through the relay unplanted; the plant gives the member's
        # answers alone the media type a part wrote it under, and the catcher must fail
        # citing MB-RESP-4.
        verdicts=("FAIL",),
        unplanted=(Verdict.NA,),
    ),
    Group(
        "trim-and-rule-readings",
        _names(trim_and_rule_readings.PLANTS),
        tuple(sorted({c for p in trim_and_rule_readings.PLANTS for c in p.catchers})),
        ("FAIL",),
    ),
    Group(
        "refused-preconditions",
        _names(refused_preconditions.PLANTS),
        ("conditional-fields-on-refused-posts", "conditional-fields-where-the-request-fails"),
        ("FAIL",),
    ),
    Group(
        "budget-scope",
        _names(budget_scope.PLANTS),
        ("budget-full-non-batches-answered-as-idle",),
        ("FAIL",),
        # Holds the budget's batches for 1.5 s, each plant twice (unplanted, then planted).
        tier="slow",
    ),
    Group(
        # MB-LIMIT-6 (SHOULD): "bound the batches it holds in flight ... and ... answer a batch
        # request beyond that budget with 503": batches of every kind, WARN unless strict.
        "budget-kinds",
        _names(budget_kinds.PLANTS),
        ("budget-holds-every-kind-of-batch",),
        # Holds the budget's batches for 1 s, each plant twice (unplanted, then planted).
        tier="slow",
    ),
    Group(
        # MB-SUB-3 "MUST keep every other method ... out of this rule"; MB-PART-8 hands every
        # field but the control fields on, and MB-PART-9 forbids eleven by name.
        "refusal-list-neighbours",
        _names(refusal_list_neighbours.PLANTS),
        ("forbidden-method-neighbours-run", "unforbidden-part-fields-reach-resource"),
        ("FAIL",),
    ),
    Group(
        # MB-PART-8 hands on every field of a part but Http-Method and Content-Id "in order":
        # its Content-Length (learnt from an echo that lists the one received alone), its
        # Content-Type parameters, content coding, range, digests and MIME fields included.
        "part-content-fields",
        _names(part_content_fields.PLANTS),
        ("part-field-kinds-reach-resource",),
        ("FAIL",),
    ),
    Group(
        # Each refusal rule one step off its edge: a valid neighbour of a refused value refused,
        # or a refused neighbour of a valid value run (MB-WIRE-2, MB-WIRE-4, MB-WIRE-17,
        # MB-WIRE-19, MB-WIRE-20, MB-PART-2, MB-PART-4, MB-PART-8, MB-SUB-3, MB-SUB-4,
        # MB-SUB-8, MB-PROC-19).
        "refusal-edges",
        _names(refusal_edges.PLANTS),
        tuple(sorted({c for p in refusal_edges.PLANTS for c in p.catchers})),
        ("FAIL",),
    ),
    Group(
        # MB-PROC-10: a sub-response's ETag and Last-Modified pass through to its part, a
        # 201's included.
        "created-validators",
        (*_names(created_validators.PLANTS), "xml-href-names-created-member"),
        ("created-fields-every-form", "part-validators-of-their-moment"),
        ("FAIL",),
    ),
    Group(
        # MB-TEST-1: the etag_resource answers "a `GET`" with ETag and Last-Modified, over any
        # HTTP version; MB-TEST-8: a collection's GET with Accept: multipart/mixed is a
        # collection retrieval over any version.
        "test-resources-versions",
        ("etag-withheld-from-http10", "collection-listing-for-http10"),
        ("test-resources-any-http-version",),
        ("FAIL",),
    ),
    Group(
        # MB-MULTI-4: the JSON form is a JSON text, which RFC 8259 §8.1 sends in UTF-8 without
        # a byte order mark.
        "json-text-octets",
        ("json-document-with-byte-order-mark",),
        ("multistatus-json",),
        ("FAIL",),
    ),
    Group(
        # MB-MULTI-10 (SHOULD): `Vary: Accept`; `Vary: *` names no field a cache can key on.
        "vary-naming-accept",
        ("vary-star-for-accept",),
        ("vary-in-every-form", "top-level-fields"),
        ("WARN", "FAIL"),
    ),
    Group(
        # Spec 7.4: "A part fails when its status is 400 or above", a write's too.
        "failed-writes",
        _names(failed_writes.PLANTS),
        ("stop-at-failed-write",),
        ("FAIL",),
    ),
    Group(
        # MB-SUB-5, MB-PART-8, MB-PART-13, MB-PART-5, MB-SUB-1: a sub-request's credentials,
        # method, authority, target and the resource's own checks, broken for some parts only.
        "subrequest-readings",
        _names(subrequest_readings.PLANTS),
        tuple(sorted({c for p in subrequest_readings.PLANTS for c in p.catchers})),
        ("FAIL",),
    ),
    Group(
        # MB-STATUS-5: the top-level status "without regard to the statuses of its parts",
        # judged wherever a batch answer is read, an atomic one rolled back included.
        "status-by-parts",
        _names(status_by_parts.PLANTS),
        ("atomic-failing-edges", "status-codes-reported-exactly"),
        ("FAIL",),
    ),
    Group(
        # RFC 9110 §6.5.1: "A recipient MUST NOT merge a trailer field into a header section"
        # unless its definition permits it; MB-SUB-6, MB-PROC-5, MB-MULTI-1, MB-INTER-5.
        "trailer-fields",
        _names(trailer_fields.PLANTS),
        ("chunked-trailer-fields-not-read-as-header",),
        ("FAIL",),
    ),
    Group(
        # MB-MULTI-3, MB-MULTI-4: each 207 form is a document of its format, so the values it
        # carries are escaped by that format's rules; MB-MULTI-5, MB-MULTI-6: escapes undone,
        # each value is the multipart form's.
        "escaped-values",
        _names(escaped_values.PLANTS),
        ("field-values-escaped-every-form", "multistatus-content-ids"),
        ("FAIL",),
    ),
    Group(
        # MB-TEST-1: "Those answers do not depend on proactive negotiation"; MB-TEST-2: the
        # echo answers "every request ... with 200, `Content-Type: application/json`".
        "test-resources-negotiation",
        (
            "ok-resource-negotiates-html-alone",
            "ok-resource-negotiates-html-in-parts",
            "echo-negotiates-xml",
        ),
        ("test-resources-ignore-negotiation",),
        ("FAIL",),
    ),
    Group(
        # MB-METHOD-3: "answer 400 to a `GET` request for a collection retrieval, or to a batch
        # endpoint, that has content"; MB-STATUS-7: "answer a `GET` collection retrieval with
        # the status of the collection as a whole: 200 ..., 304 ..., 404".
        "get-content-and-ranges",
        _names(get_content_and_ranges.PLANTS),
        ("get-with-any-content-refused", "collection-retrieval-ignores-range"),
        ("FAIL",),
    ),
    Group(
        # Each rule's valid neighbour refused, or its invalid one taken: MB-TEST-6's "a value
        # that is not three digits", MB-TEST-3's answers on each side of "exists", MB-INTER-6's
        # coding lists, RFC 9110 §12.4.2's three-decimal weights, §5.6.1's empty list elements in
        # Prefer, and MB-METHOD-3's GET with and without content.
        "boundary-neighbours",
        _names(boundary_neighbours.PLANTS),
        tuple(sorted({c for p in boundary_neighbours.PLANTS for c in p.catchers})),
        ("FAIL",),
    ),
    Group(
        # What a server sends, read as strictly as its sender rule and no more: RFC 9112 and
        # RFC 9110 §5 for a head (MB-STATUS-1, MB-STATUS-4), RFC 8259 for the JSON texts
        # (MB-MULTI-4, MB-LIMIT-2, MB-TEST-2, MB-TEST-4), RFC 4648 §3.5 for base64
        # (MB-TEST-2, MB-MULTI-7, MB-MULTI-6), the XML form's values (MB-MULTI-6), RFC 9110
        # §5.6.7's IMF-fixdate and a delay's digits (MB-TEST-1, MB-METHOD-5, MB-LIMIT-6),
        # RFC 9651's dictionary (MB-STATUS-15) and RFC 7240's list (MB-PROC-6). Each plant's
        # own verdicts: the aggregate Last-Modified and Retry-After break a SHOULD.
        "sender-grammar",
        tuple(n for n in _names(sender_grammar.PLANTS) if n != SPACED_SUMMARY),
        tuple(
            sorted(
                {c for p in sender_grammar.PLANTS if p.name != SPACED_SUMMARY for c in p.catchers}
            )
        ),
        slow_plants=("busy-retry-after-rfc850-date", "busy-retry-after-no-break-space"),
    ),
    Group(
        # The relay drops the reference server's own trailer, so unplanted the catcher finds
        # none to judge.
        "sender-grammar-summary",
        (SPACED_SUMMARY,),
        ("batch-summary-trailer",),
        unplanted=(Verdict.PASS, Verdict.NA),
    ),
    Group(
        # RFC 9112 §6.3: an answer to HEAD and a 204 or 304 answer end at their header section.
        # Content written after one is read as the next answer's first octets: MB-PIPE-1 ("answer
        # pipelined requests on a connection, batch requests and other requests alike, in the
        # order it received them") for the request pipelined behind a HEAD; MB-TEST-6 ("with no
        # content for 204 and 304") for the status resource's 204 and 304, shown by the GET sent
        # behind them on the connection.
        "answers-without-content",
        _names(answers_without_content.PLANTS),
        tuple(sorted({c for p in answers_without_content.PLANTS for c in p.catchers})),
        ("FAIL",),
    ),
    Group(
        # MB-PART-8: "take a request part's header fields other than `Http-Method` and
        # `Content-Id` as the sub-request's header fields, in order"; MB-SUB-5: "apply the batch
        # request's `Authorization` and `Cookie` fields to each sub-request whose part carries no
        # field of the same name": broken on the atomic or the references path only.
        "mode-subrequests",
        _names(mode_subrequests.PLANTS),
        ("part-control-fields-in-every-mode", "part-credentials-in-every-mode"),
        ("FAIL",),
    ),
    # Each plant's own verdicts: a Content-Length left out breaks a SHOULD (WARN unless strict).
    Group(
        "answer-sizes",
        _names(answer_sizes.PLANTS),
        tuple(sorted({c for p in answer_sizes.PLANTS for c in p.catchers})),
        each_catcher=False,
    ),
    Group(
        # MB-PART-11: "reject a part header line that is not a valid `field-line`" (RFC 9110
        # §5.5: "field-vchar = VCHAR / obs-text"; §5.6.3: "OWS = *( SP / HTAB )"); MB-PART-8:
        # the value the resource receives is the part's.
        "field-value-controls",
        _names(field_value_controls.PLANTS),
        ("part-field-value-controls-refused", "part-field-value-neighbours-reach-echo"),
        ("FAIL",),
    ),
    Group(
        # MB-PART-8: "take a request part's header fields other than `Http-Method` and
        # `Content-Id` as the sub-request's header fields, in order"; RFC 9110 §5.5:
        # "field-vchar = VCHAR / obs-text", §5.6.2: "tchar = ... / DIGIT / ALPHA".
        "field-line-octets",
        _names(field_line_octets.PLANTS),
        ("part-field-name-tchars-reach-echo", "part-field-value-octets-reach-echo"),
        ("FAIL",),
    ),
    Group(
        # MB-MULTI-5: "carry the same information in every representation of one batch result:
        # for each part ... its body", a JSON string's control characters escaped by their hex
        # code (RFC 8259 §7), judged over the octet store (unplanted, the reference's sandbox
        # refuses octets, so the check of chosen octets has nothing to judge); MB-TEST-6: "with
        # no content for 204 and 304", a part the only place the status resource's content for
        # 304 shows.
        "carried-content",
        _names(carried_content.PLANTS),
        (
            "multistatus-body-members-whole-body",
            "no-content-on-204-304",
            "no-content-parts-as-alone",
        ),
        ("FAIL",),
        unplanted=(Verdict.PASS, Verdict.NA),
    ),
    Group(
        # MB-WIRE-4: a server "MUST accept, as far as the boundary goes, every boundary that
        # MB-WIRE-3 allows" (RFC 9110 §5.6.6: `parameters = *( OWS ";" OWS [ parameter ] )`);
        # MB-PROC-13: "A server MUST recognise the `batch-on-error` preference" (RFC 7240 §2:
        # OWS around ";" and ",", BWS around "="); MB-TEST-2: "`headers`, the request's header
        # fields as an array of `[name, value]` pairs in the order received", whatever the size
        # of the request's head.
        "ows-and-head-sizes",
        _names(ows_and_head_sizes.PLANTS),
        ("content-type-and-prefer-ows-every-kind", "echo-field-order-every-head-size"),
        ("FAIL",),
    ),
)


#: The plants run in this many files, each taking every n-th plant: pytest-xdist keeps a file on
#: one worker (--dist loadfile), so one file of every plant would hold one worker for most of the
#: run while the others finish. Taking every n-th spreads each group's cost (some groups' plants
#: wait out budgets or delays) over the files; a group of more than n plants still has several
#: in one file, whose catchers run unplanted once there (tests/conformance/_plants.py).
PLANT_FILES = 5


def plant_params(share: int) -> list[object]:
    """Every PLANT_FILES-th (group, plant) from the `share`-th, each marked with its tier."""
    params: list[object] = []
    for group in GROUPS:
        for name in sorted(group.plants):
            tier = "slow" if name in group.slow_plants else group.tier
            marks = [getattr(pytest.mark, tier)] if tier else []
            params.append(pytest.param(group, name, marks=marks, id=f"{group.name}:{name}"))
    return params[share::PLANT_FILES]


def test_every_plant_is_known_and_in_one_group() -> None:
    named = [name for group in GROUPS for name in group.plants]
    assert len(named) == len(set(named))
    assert set(named) <= set(BY_NAME)


def test_every_check_is_held_to_pass_on_the_reference_server() -> None:
    """Each group's checks are in the smoke or standard tier, whose runs against the reference
    server (test_reference_server) fail on any verdict but PASS outside their listed N/As; none
    of the groups' checks may be such an N/A, so each is held to PASS there without a second run."""
    checks = {check for group in GROUPS for check in group.checks}
    in_tier_runs = {c.id for c in select("standard")}
    assert checks <= in_tier_runs, sorted(checks - in_tier_runs)
    excused = set(EXPECTED_NA) | set(EXPECTED_STANDARD_NA) | set(KNOWN_SERVER_BUGS)
    assert not checks & (excused | set(KNOWN_STANDARD_SERVER_BUGS)), sorted(checks & excused)


def judge_plant(group: Group, name: str, relay: Relay, relayed: Context) -> None:
    """The plant's catchers pass through the relay with nothing planted, and catch it planted,
    citing its requirement."""
    plant = BY_NAME[name]
    assert_catchers_pass_unplanted(plant, relay, relayed, group.unplanted)
    assert_caught_under_requirement(
        plant, relay, relayed, group.verdicts or None, each_catcher=group.each_catcher
    )


@pytest.mark.parametrize(("group", "name"), plant_params(0))
def test_plant_is_caught_citing_its_requirement(
    group: Group, name: str, relay: Relay, relayed: Context
) -> None:
    judge_plant(group, name, relay, relayed)
