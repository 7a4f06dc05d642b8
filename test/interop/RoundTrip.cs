// A .NET client as integrators write them: DataContract classes with no explicit Order, so
// DataContractSerializer writes and expects members in ordinal order. Usage:
//   mono roundtrip.exe <Type> <in.xml> <out.xml> [Field=Value]
// Reads <in.xml> (one record, or a collection when <Type> starts with "ArrayOf" or is "List"),
// prints every member as name=value (one per line, records separated by "--"; a list member as its
// items joined by ";", each item's members by "|"), optionally sets one member (a path such as
// Ratings.0.Rating reaches into a list), and writes the (first) record back to <out.xml> the way
// .NET does.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Runtime.Serialization;
using System.Xml;

[DataContract(Name = "Site", Namespace = "urn:pms:v4")]
public class Site {
  [DataMember] public Guid ID;
  [DataMember] public string Name;
  [DataMember] public bool PerformanceManagement;
  [DataMember] public DateTime? Created;
  [DataMember] public DateTime? Updated;
}

[CollectionDataContract(Name = "ArrayOfSite", Namespace = "urn:pms:v4", ItemName = "Site")]
public class ArrayOfSite : List<Site> {}

[DataContract(Name = "ListItem", Namespace = "urn:pms:v4")]
public class ListItem {
  [DataMember] public Guid ID;
  [DataMember] public Guid AncestorID;
  [DataMember] public int Rank;
  [DataMember] public string Name;
  [DataMember] public string Description;
  [DataMember] public Guid SiteID;
  [DataMember] public bool Deleted;
  [DataMember] public bool DeletedByRef;
  [DataMember] public DateTime? Created;
  [DataMember] public Guid? CreatedBy;
  [DataMember] public DateTime? Updated;
  [DataMember] public Guid? UpdatedBy;
}

[CollectionDataContract(Name = "List", Namespace = "urn:pms:v4", ItemName = "ListItem")]
public class List : List<ListItem> {}

[DataContract(Name = "Individual", Namespace = "urn:pms:v4")]
public class Individual {
  [DataMember] public Guid ID;
  [DataMember] public Guid SiteID;
  [DataMember] public bool? IsAdmin;
  [DataMember] public Guid? UserID;
  [DataMember] public string Prefix;
  [DataMember] public string Suffix;
  [DataMember] public string FirstName;
  [DataMember] public string LastName;
  [DataMember] public string UserDefined1;
  [DataMember] public string UserDefined2;
  [DataMember] public string UserDefined3;
  [DataMember] public string UserDefined4;
  [DataMember] public string Email;
  [DataMember] public Guid? PrimaryOrganizationID;
  [DataMember] public string PrimaryTitle;
  [DataMember] public Guid? PrimaryReportsTo;
  [DataMember] public string UserName;
  [DataMember] public string Password;
  [DataMember] public Guid? ParentID;
  [DataMember] public string PrimaryOrganizationName;
  [DataMember] public string FullName;
  [DataMember] public string FormalName;
  [DataMember] public string FullOrderedName;
  [DataMember] public bool Deleted;
  [DataMember] public bool DeletedByRef;
  [DataMember] public DateTime? Created;
  [DataMember] public DateTime? Updated;
  [DataMember] public Guid? CreatedBy;
  [DataMember] public Guid? UpdatedBy;
  [DataMember] public bool IsGlobalAdmin;
  [DataMember] public string UserEmail;
  [DataMember] public string LastComment;
  [DataMember] public DateTimeOffset? LastCommentDate;
  [DataMember] public Guid? LastCommentByID;
  [DataMember] public string LastCommentBy;
  [DataMember] public bool CanRead;
  [DataMember] public bool CanUpdate;
  [DataMember] public bool CanDelete;
  [DataMember] public bool CanDelegate;
  [DataMember] public bool SendEvalSurvey;
  [DataMember] public DateTime? HireDate;
  [DataMember] public string ExternalID;
}

[DataContract(Name = "BasicRole", Namespace = "urn:pms:v4")]
public class BasicRole {
  [DataMember] public Guid ID;
  [DataMember] public Guid IndividualID;
  [DataMember] public string Name;
  [DataMember] public string Description;
  [DataMember] public int Rank;
  [DataMember] public int DialogsPerPeriod;
  [DataMember] public Guid SiteID;
  [DataMember] public bool Deleted;
  [DataMember] public bool DeletedByRef;
  [DataMember] public DateTime? Created;
  [DataMember] public Guid? CreatedBy;
  [DataMember] public DateTime? Updated;
  [DataMember] public Guid? UpdatedBy;
}

[CollectionDataContract(Name = "ArrayOfBasicRole", Namespace = "urn:pms:v4", ItemName = "BasicRole")]
public class ArrayOfBasicRole : List<BasicRole> {}

[DataContract(Name = "AssessmentRating", Namespace = "urn:pms:v4")]
public class AssessmentRating {
  [DataMember] public string ItemKind;
  [DataMember] public Guid? ItemID;
  [DataMember] public int Rating;
}

[DataContract(Name = "Assessment", Namespace = "urn:pms:v4")]
public class Assessment {
  [DataMember] public Guid ID;
  [DataMember] public string Kind;
  [DataMember] public Guid SubjectID;
  [DataMember] public Guid AssessorID;
  [DataMember] public int PeriodID;
  [DataMember] public List<AssessmentRating> Ratings;
  [DataMember] public Guid SiteID;
  [DataMember] public DateTime? Created;
  [DataMember] public Guid? CreatedBy;
  [DataMember] public DateTime? Updated;
  [DataMember] public Guid? UpdatedBy;
}

[CollectionDataContract(Name = "ArrayOfAssessment", Namespace = "urn:pms:v4", ItemName = "Assessment")]
public class ArrayOfAssessment : List<Assessment> {}

[DataContract(Name = "Permission", Namespace = "urn:pms:v4")]
public class Permission {
  [DataMember] public Guid ID;
  [DataMember] public Guid RowID;
  [DataMember] public Guid PrincipalID;
  [DataMember] public int? ChildType;
  [DataMember] public int CreateState;
  [DataMember] public int ReadState;
  [DataMember] public int UpdateState;
  [DataMember] public int DeleteState;
  [DataMember] public int DelegateState;
  [DataMember] public Guid SiteID;
  [DataMember] public int RowType;
  [DataMember] public string PrincipalName;
  [DataMember] public int PrincipalType;
  [DataMember] public string RowName;
  [DataMember] public string CreateText;
  [DataMember] public string ReadText;
  [DataMember] public string UpdateText;
  [DataMember] public string DeleteText;
  [DataMember] public string DelegateText;
  [DataMember] public DateTime? Created;
  [DataMember] public Guid? CreatedBy;
  [DataMember] public DateTime? Updated;
  [DataMember] public Guid? UpdatedBy;
}

[CollectionDataContract(Name = "ArrayOfPermission", Namespace = "urn:pms:v4", ItemName = "Permission")]
public class ArrayOfPermission : List<Permission> {}

[DataContract(Name = "SecurityGroupMember", Namespace = "urn:pms:v4")]
public class SecurityGroupMember {
  [DataMember] public Guid IndividualID;
  [DataMember] public string FullName;
}

[DataContract(Name = "SecurityGroup", Namespace = "urn:pms:v4")]
public class SecurityGroup {
  [DataMember] public Guid ID;
  [DataMember] public string Name;
  [DataMember] public string Description;
  [DataMember] public List<SecurityGroupMember> Members;
  [DataMember] public Guid SiteID;
  [DataMember] public DateTime? Created;
  [DataMember] public Guid? CreatedBy;
  [DataMember] public DateTime? Updated;
  [DataMember] public Guid? UpdatedBy;
}

[DataContract(Name = "Dashboard", Namespace = "urn:pms:v4")]
public class Dashboard {
  [DataMember] public Guid ID;
  [DataMember] public Guid SiteID;
  [DataMember] public int RowType;
  [DataMember] public string Name;
  [DataMember] public DateTime FromDate;
  [DataMember] public DateTime ToDate;
  [DataMember] public int OrganizationCommitmentsCompleted;
  [DataMember] public int OrganizationCommitmentsTotal;
  [DataMember] public int? OrganizationCommitmentsColorValue;
  [DataMember] public int DepartmentCommitmentsCompleted;
  [DataMember] public int DepartmentCommitmentsTotal;
  [DataMember] public int? DepartmentCommitmentsColorValue;
  [DataMember] public int IndividualCommitmentsCompleted;
  [DataMember] public int IndividualCommitmentsTotal;
  [DataMember] public int? IndividualCommitmentsColorValue;
  [DataMember] public decimal? MetricsExceedsPercent;
  [DataMember] public decimal? MetricsMeetsPercent;
  [DataMember] public decimal? MetricsMinimumPercent;
  [DataMember] public decimal? MetricsBelowPercent;
  [DataMember] public decimal? Metrics8020Percent;
  [DataMember] public decimal? Metrics8020CompositePercent;
  [DataMember] public int ProjectsActive;
  [DataMember] public int ProjectsOnTime;
  [DataMember] public int ProjectsCompleted;
  [DataMember] public int ProjectsDateChanges;
  [DataMember] public int DeptProjectsActive;
  [DataMember] public int DeptProjectsOnTime;
  [DataMember] public int DeptProjectsCompleted;
  [DataMember] public int DeptProjectsDateChanges;
  [DataMember] public decimal? EvaluationCriteriaPercent;
  [DataMember] public decimal? LeaderAssessmentPercent;
  [DataMember] public decimal? TeamAssessmentPercent;
  [DataMember] public decimal? SelfAssessmentPercent;
  [DataMember] public decimal? DialogsCompletedPercent;
  [DataMember] public decimal? FollowUpsCompletedPercent;
  [DataMember] public decimal? IndividualPerformancePercent;
  [DataMember] public decimal? IndividualCoreValuesPercent;
  [DataMember] public decimal? IndividualBasicRolePercent;
  [DataMember] public int PersonalGoalsCompleted;
  [DataMember] public int PersonalGoalsTotal;
  [DataMember] public int OrgDialogsExpected;
  [DataMember] public int OrgDialogsOccurred;
  [DataMember] public int DeptDialogsExpected;
  [DataMember] public int DeptDialogsOccurred;
  [DataMember] public int ProjDialogsExpected;
  [DataMember] public int ProjDialogsOccurred;
  [DataMember] public int IndDialogsExpected;
  [DataMember] public int IndDialogsOccurred;
  [DataMember] public int OrgFollowUpsCreated;
  [DataMember] public int OrgFollowUpsCompleted;
  [DataMember] public int DeptFollowUpsCreated;
  [DataMember] public int DeptFollowUpsCompleted;
  [DataMember] public int ProjFollowUpsCreated;
  [DataMember] public int ProjFollowUpsCompleted;
  [DataMember] public int IndFollowUpsCreated;
  [DataMember] public int IndFollowUpsCompleted;
  [DataMember] public int Threshold1;
  [DataMember] public int Threshold2;
  [DataMember] public int Threshold3;
  [DataMember] public bool ShowMetrics;
  [DataMember] public bool ShowDialogs;
  [DataMember] public bool ShowFollowUps;
  [DataMember] public bool ShowProjectLoad;
  [DataMember] public bool ShowEvaluationCriteria;
  [DataMember] public bool ShowLeaderAssessment;
  [DataMember] public bool ShowTeamAssessment;
  [DataMember] public bool ShowGoals;
  [DataMember] public bool ShowOrgCommitments;
  [DataMember] public bool ShowDeptCommitments;
  [DataMember] public bool ShowIndCommitments;
  [DataMember] public bool Show8020Metrics;
}

[CollectionDataContract(Name = "Dashboards", Namespace = "urn:pms:v4", ItemName = "Dashboard")]
public class Dashboards : List<Dashboard> {}

[DataContract(Name = "DashboardSettings", Namespace = "urn:pms:v4")]
public class DashboardSettings {
  [DataMember] public Guid SiteID;
  [DataMember] public int Threshold1;
  [DataMember] public int Threshold2;
  [DataMember] public int Threshold3;
  [DataMember] public bool ShowMetrics;
  [DataMember] public bool ShowDialogs;
  [DataMember] public bool ShowFollowUps;
  [DataMember] public bool ShowProjectLoad;
  [DataMember] public bool ShowEvaluationCriteria;
  [DataMember] public bool ShowLeaderAssessment;
  [DataMember] public bool ShowTeamAssessment;
  [DataMember] public bool ShowGoals;
  [DataMember] public bool ShowOrgCommitments;
  [DataMember] public bool ShowDeptCommitments;
  [DataMember] public bool ShowIndCommitments;
  [DataMember] public bool Show8020Metrics;
}

public static class Program {
  static string Show(object v) {
    if (v == null) return "null";
    if (v is DateTime) return ((DateTime)v).ToUniversalTime().ToString("yyyy-MM-ddTHH:mm:ss.fffZ", CultureInfo.InvariantCulture);
    if (v is DateTimeOffset) {
      var d = (DateTimeOffset)v;
      return d.UtcDateTime.ToString("yyyy-MM-ddTHH:mm:ss.fffZ", CultureInfo.InvariantCulture) + "|" + d.Offset.TotalMinutes.ToString(CultureInfo.InvariantCulture);
    }
    if (v is bool) return ((bool)v) ? "true" : "false";
    if (v is Guid) return ((Guid)v).ToString("D");
    if (v is System.Collections.IList) {
      var items = new List<string>();
      foreach (var item in (System.Collections.IList)v) {
        var members = new List<string>();
        foreach (var f in item.GetType().GetFields(BindingFlags.Public | BindingFlags.Instance)) members.Add(Show(f.GetValue(item)));
        items.Add(string.Join("|", members));
      }
      return string.Join(";", items);
    }
    return Convert.ToString(v, CultureInfo.InvariantCulture);
  }

  // Sets the member at a path such as "Name" or "Ratings.0.Rating" (strings, ints, bools, guids).
  static void Set(object target, string path, string value) {
    var parts = path.Split('.');
    for (var i = 0; i < parts.Length - 1; i++) {
      var list = target as System.Collections.IList;
      target = list != null ? list[int.Parse(parts[i], CultureInfo.InvariantCulture)] : target.GetType().GetField(parts[i]).GetValue(target);
    }
    var field = target.GetType().GetField(parts[parts.Length - 1]);
    var type = Nullable.GetUnderlyingType(field.FieldType) ?? field.FieldType;
    object converted = type == typeof(Guid) ? (object)Guid.Parse(value) : Convert.ChangeType(value, type, CultureInfo.InvariantCulture);
    field.SetValue(target, converted);
  }

  static void Print(object record) {
    foreach (var f in record.GetType().GetFields(BindingFlags.Public | BindingFlags.Instance)) {
      Console.WriteLine(f.Name + "=" + Show(f.GetValue(record)).Replace("\n", "\\n"));
    }
    Console.WriteLine("--");
  }

  public static int Main(string[] args) {
    var type = Type.GetType(args[0]);
    var serializer = new DataContractSerializer(type);
    object value;
    using (var reader = XmlReader.Create(args[1])) value = serializer.ReadObject(reader);
    object first = value;
    var list = value as System.Collections.IList;
    if (list != null) {
      foreach (var item in list) Print(item);
      first = list.Count > 0 ? list[0] : null;
    } else {
      Print(value);
    }
    if (first == null) return 0;
    if (args.Length > 3) {
      var eq = args[3].IndexOf('=');
      Set(first, args[3].Substring(0, eq), args[3].Substring(eq + 1));
    }
    var single = new DataContractSerializer(first.GetType());
    using (var writer = XmlWriter.Create(args[2], new XmlWriterSettings { Indent = false })) single.WriteObject(writer, first);
    return 0;
  }
}
