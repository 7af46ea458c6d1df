package mbserver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Parses every request vector of spec/examples and compares the outcome with its .json. Usage: VectorCheck [dir] */
public final class VectorCheck {
    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args.length > 0 ? args[0] : "../../spec/examples");
        List<Path> files;
        try (var s = Files.list(dir)) {
            files = s.filter(p -> p.toString().endsWith(".request.json")).sorted().collect(Collectors.toList());
        }
        int ok = 0, bad = 0;
        for (Path jf : files) {
            Map<String, Object> v = (Map<String, Object>) Json.parse(Files.readString(jf));
            String id = (String) v.get("id");
            byte[] content = Files.readAllBytes(dir.resolve(id + ".http"));
            Map<String, Object> ctx = (Map<String, Object>) v.get("context");
            Envelope.Config cfg = new Envelope.Config();
            Map<String, Object> lim = (Map<String, Object>) v.get("limits");
            if (lim != null) {
                if (lim.containsKey("max_parts")) cfg.maxParts = ((Long) lim.get("max_parts")).intValue();
                if (lim.containsKey("max_part_bytes")) cfg.maxPartBytes = (Long) lim.get("max_part_bytes");
                if (lim.containsKey("max_part_header_bytes")) cfg.maxPartHeaderBytes = ((Long) lim.get("max_part_header_bytes")).intValue();
                if (lim.containsKey("max_part_fields")) cfg.maxPartFields = ((Long) lim.get("max_part_fields")).intValue();
            }
            String got;
            List<String> targets = new ArrayList<>();
            List<Envelope.Part> parts = null;
            try {
                if (lim != null && lim.containsKey("max_batch_bytes") && content.length > (Long) lim.get("max_batch_bytes"))
                    throw new Problem(413, "MB-STATUS-3", "batch-too-large", "Batch too large", null).limit("max_batch_bytes", (Long) lim.get("max_batch_bytes"));
                MediaType mt;
                try { mt = MediaType.parse((String) v.get("content_type")); }
                catch (MediaType.Syntax e) { throw new Problem(400, "MB-WIRE-4", "x", "bad content type", e.getMessage()); }
                if (!mt.is("multipart", "mixed")) throw new Problem(415, "MB-WIRE-2", "x", "media type", null);
                List<String> bs = mt.param("boundary");
                if (bs.size() != 1 || MediaType.boundaryFault(bs.get(0)) != null) throw new Problem(400, "MB-WIRE-4", "x", "boundary", null);
                parts = Envelope.parse(content, bs.get(0), cfg);
                String authority = (String) ctx.get("authority");
                String target = (String) ctx.get("target");
                UriRef base = UriRef.parse(ctx.get("scheme") + "://" + authority + target);
                for (Envelope.Part p : parts) targets.add(Targets.check(p, base, authority, UriRef.routingPath(base.path)));
                got = "valid " + parts.size();
            } catch (Problem p) {
                got = "error " + p.status + " " + p.requirement + " part=" + p.partIndex + " off=" + p.byteOffset;
            }
            String want;
            List<String> diffs = new ArrayList<>();
            if (Boolean.TRUE.equals(v.get("valid"))) {
                List<Object> eparts = (List<Object>) ((Map<String, Object>) v.get("expect")).get("parts");
                want = "valid " + eparts.size();
                if (got.equals(want)) {
                    for (int i = 0; i < eparts.size(); i++) {
                        Map<String, Object> ep = (Map<String, Object>) eparts.get(i);
                        Envelope.Part p = parts.get(i);
                        if (!ep.get("method").equals(p.method)) diffs.add("part " + i + " method " + p.method);
                        if (!("<" + ep.get("target") + ">").equals(p.contentId)) diffs.add("part " + i + " target " + p.contentId);
                        if (ep.containsKey("resolved_target") && !ep.get("resolved_target").equals(targets.get(i))) diffs.add("part " + i + " resolved " + targets.get(i) + " want " + ep.get("resolved_target"));
                        if (((Long) ep.get("body_length")).intValue() != p.bodyLength) diffs.add("part " + i + " body_length " + p.bodyLength);
                        List<Object> ef = (List<Object>) ep.get("fields");
                        List<String> gotFields = new ArrayList<>();
                        for (Fields.Field f : p.fields.list)
                            if (!Fields.nameEq(f.name, "Http-Method") && !Fields.nameEq(f.name, "Content-Id")) gotFields.add(f.name + ": " + f.value);
                        List<String> wantFields = new ArrayList<>();
                        for (Object o : ef) { List<Object> nv = (List<Object>) o; wantFields.add(nv.get(0) + ": " + nv.get(1)); }
                        if (!gotFields.equals(wantFields)) diffs.add("part " + i + " fields " + gotFields + " want " + wantFields);
                    }
                }
            } else {
                Map<String, Object> e = (Map<String, Object>) v.get("error");
                want = "error " + e.get("status") + " " + e.get("requirement") + " part=" + e.get("part_index") + " off=" + e.get("byte_offset");
            }
            if (got.equals(want) && diffs.isEmpty()) { ok++; }
            else { bad++; System.out.println("MISMATCH " + id + "\n   got:  " + got + "\n   want: " + want + (diffs.isEmpty() ? "" : "\n   " + diffs)); }
        }
        System.out.println(ok + " vectors agree, " + bad + " differ");
        if (bad > 0) System.exit(1);
    }
}
