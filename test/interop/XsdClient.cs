// A .NET client as a team generates it from the service's XML Schema: the classes come from
// `xsd pms-v4.xsd pms-v4-system.xsd pms-v4-problem.xsd /classes /namespace:Pms` (Mono's xsd), this
// file only drives them through XmlSerializer, finding the class of a document by its root element.
//   mono xsdclient.exe read <in.xml>...
//     reads each document into the generated classes and prints it as one line of JSON: every
//     member under its element name, DateTime as its UTC instant, a DataContract DateTimeOffset as
//     {"DateTime","OffsetMinutes"}, a choice list (List) as its items, any-content (a SyncEntry's
//     Record) as {element: text}.
//   mono xsdclient.exe write <in.xml> <out.xml> <ID> [<Member> <change.xml>]
//     reads the document, takes the record (of a collection: the item whose ID is <ID>), sets one
//     member to its value in <change.xml> (a document of the record's type holding that member),
//     prints the record as above and writes it back as XmlSerializer writes it.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text;
using System.Xml;
using System.Xml.Serialization;

public static class XsdClient {
  static Type ClassOf(string root, string ns) {
    foreach (var t in typeof(Pms.DateTimeOffset).Assembly.GetTypes()) {
      if (t.Namespace != "Pms") continue;
      var r = (XmlRootAttribute)Attribute.GetCustomAttribute(t, typeof(XmlRootAttribute));
      if (r == null) continue;
      var name = string.IsNullOrEmpty(r.ElementName) ? t.Name : r.ElementName;
      if (name == root && (r.Namespace ?? "") == ns) return t;
    }
    throw new Exception("no generated class has the root element {" + ns + "}" + root);
  }

  static object Read(string file) {
    string root, ns;
    using (var reader = XmlReader.Create(file)) {
      reader.MoveToContent();
      root = reader.LocalName;
      ns = reader.NamespaceURI;
    }
    var serializer = new XmlSerializer(ClassOf(root, ns));
    serializer.UnknownElement += (s, e) => { throw new Exception("unknown element " + e.Element.Name + " at line " + e.LineNumber); };
    serializer.UnknownAttribute += (s, e) => {
      if (e.Attr.NamespaceURI != "http://www.w3.org/2000/xmlns/") throw new Exception("unknown attribute " + e.Attr.Name);
    };
    using (var reader = XmlReader.Create(file)) return serializer.Deserialize(reader);
  }

  static string ElementName(PropertyInfo p) {
    foreach (XmlElementAttribute a in p.GetCustomAttributes(typeof(XmlElementAttribute), false))
      if (!string.IsNullOrEmpty(a.ElementName) && a.Type == null) return a.ElementName;
    return p.Name;
  }

  static IEnumerable<PropertyInfo> Members(Type t) {
    return t.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.GetIndexParameters().Length == 0 && !p.Name.EndsWith("Specified"));
  }

  static string Quote(string s) {
    var b = new StringBuilder("\"");
    foreach (var c in s) {
      if (c == '"' || c == '\\') b.Append('\\').Append(c);
      else if (c < ' ') b.Append("\\u").Append(((int)c).ToString("x4"));
      else b.Append(c);
    }
    return b.Append('"').ToString();
  }

  static string Json(object v) {
    if (v == null) return "null";
    if (v is string) return Quote((string)v);
    if (v is bool) return (bool)v ? "true" : "false";
    if (v is DateTime) return Quote(((DateTime)v).ToUniversalTime().ToString("yyyy-MM-ddTHH:mm:ss.fffZ", CultureInfo.InvariantCulture));
    if (v is double) return ((double)v).ToString("R", CultureInfo.InvariantCulture);
    if (v is int || v is short || v is long || v is decimal) return Convert.ToString(v, CultureInfo.InvariantCulture);
    if (v is XmlElement[]) return "{\"$any\":" + AnyJson((XmlElement[])v) + "}";
    if (v is IEnumerable) return "[" + string.Join(",", ((IEnumerable)v).Cast<object>().Select(Json)) + "]";
    var members = Members(v.GetType()).ToList();
    // Content of any type (a SyncEntry's Record) is its elements.
    if (members.Count == 1 && members[0].PropertyType == typeof(XmlElement[])) return Json(members[0].GetValue(v, null) ?? new XmlElement[0]);
    // A collection class (ArrayOf…, List, Dashboards; the members of a nested list) is its items.
    if (members.Count == 1 && members[0].PropertyType.IsArray && members[0].PropertyType != typeof(XmlElement[])) return Json(members[0].GetValue(v, null) ?? new object[0]);
    return "{" + string.Join(",", members.Select(p => Quote(ElementName(p)) + ":" + Json(p.GetValue(v, null)))) + "}";
  }

  // Elements of any type as they are: {name: text, null for i:nil, or the same for its child elements}.
  static string AnyJson(IEnumerable<XmlElement> elements) {
    var parts = elements.Select(e => {
      var children = e.ChildNodes.OfType<XmlElement>().ToList();
      var value = e.GetAttribute("nil", "http://www.w3.org/2001/XMLSchema-instance") == "true" ? "null" : children.Count > 0 ? AnyJson(children) : Quote(e.InnerText);
      return Quote(e.LocalName) + ":" + value;
    });
    return "{" + string.Join(",", parts) + "}";
  }

  static object Pick(object doc, string id) {
    if (id == null) return doc;
    var members = Members(doc.GetType()).ToList();
    if (members.Count != 1 || !members[0].PropertyType.IsArray) return doc;
    foreach (var item in (IEnumerable)(members[0].GetValue(doc, null) ?? new object[0])) {
      var p = item.GetType().GetProperty("ID");
      if (p != null && string.Equals(Convert.ToString(p.GetValue(item, null), CultureInfo.InvariantCulture), id, StringComparison.OrdinalIgnoreCase)) return item;
    }
    throw new Exception("no item has the ID " + id);
  }

  static void Set(object record, string member, string changeFile) {
    var p = Members(record.GetType()).FirstOrDefault(m => ElementName(m) == member);
    if (p == null) throw new Exception("no member " + member);
    object change;
    using (var reader = XmlReader.Create(changeFile)) change = new XmlSerializer(record.GetType()).Deserialize(reader);
    p.SetValue(record, p.GetValue(change, null), null);
  }

  public static int Main(string[] args) {
    if (args[0] == "read") {
      foreach (var file in args.Skip(1)) Console.WriteLine(Json(Read(file)));
      return 0;
    }
    var record = Pick(Read(args[1]), args[3]);
    if (args.Length > 5) Set(record, args[4], args[5]);
    Console.WriteLine(Json(record));
    var settings = new XmlWriterSettings { Encoding = new UTF8Encoding(false), Indent = true };
    using (var writer = XmlWriter.Create(args[2], settings)) new XmlSerializer(record.GetType()).Serialize(writer, record);
    return 0;
  }
}
