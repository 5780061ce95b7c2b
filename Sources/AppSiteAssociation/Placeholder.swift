public enum _AppSiteAssociation {}
