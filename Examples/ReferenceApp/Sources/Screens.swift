import DeepLinks
import DeepLinksSwiftUI
import DemoAppRoutes
import SwiftUI

struct PostListScreen: View {
    var body: some View {
        List(1...20, id: \.self) { id in
            NavigationLink("Post \(id)", value: DemoScreen.post(id: id))
        }
        .navigationTitle("Posts")
    }
}

struct PostScreen: View {
    let id: Int

    var body: some View {
        VStack(spacing: 16) {
            Text("Post \(id)").font(.title)
            NavigationLink("Comments", value: DemoScreen.comments(postID: id))
            // The same link the server prints in a smart link or a mail: share it.
            if let link = try? DemoRoute.table.url(for: .post(id: id)) {
                ShareLink(item: URL(string: link)!)
            }
        }
        .navigationTitle("Post \(id)")
    }
}

struct CommentsScreen: View {
    let postID: Int
    var body: some View { Text("Comments on post \(postID)").navigationTitle("Comments") }
}

struct SearchScreen: View {
    @State private var query = ""
    var body: some View {
        Form {
            TextField("Search", text: $query)
            NavigationLink("Search", value: DemoScreen.search(query: query, tags: [], page: 1))
                .disabled(query.isEmpty)
        }
        .navigationTitle("Search")
    }
}

struct SearchResultsScreen: View {
    let query: String
    let tags: [String]
    let page: Int
    var body: some View {
        List {
            Text("Results for “\(query)”, page \(page)")
            if !tags.isEmpty { Text("Tags: \(tags.joined(separator: ", "))") }
        }
        .navigationTitle(query)
    }
}

/// Behind sign-in: a link to a settings tab waits in the coordinator until the user signs in here.
struct SettingsScreen: View {
    let tab: SettingsTab?
    @EnvironmentObject private var model: AppModel

    var body: some View {
        if model.sessionToken == nil {
            SignInScreen()
        } else {
            List {
                ForEach(SettingsTab.allCases, id: \.self) { item in
                    NavigationLink(item.rawValue.capitalized, value: DemoScreen.settings(tab: item))
                }
                Button("Sign out", role: .destructive) { model.signOut() }
            }
            .navigationTitle(tab?.rawValue.capitalized ?? "Settings")
        }
    }
}

struct SignInScreen: View {
    @EnvironmentObject private var model: AppModel
    @State private var email = ""
    @State private var password = ""
    @State private var failure: String?

    var body: some View {
        Form {
            TextField("Email", text: $email).textContentType(.username).keyboardType(.emailAddress)
            SecureField("Password", text: $password).textContentType(.password)
            if let failure { Text(failure).foregroundStyle(.red) }
            Button("Sign in") {
                Task {
                    do { try await model.signIn(email: email, password: password) } catch { failure = "\(error)" }
                }
            }
        }
        .navigationTitle("Sign in")
    }
}

struct NewPostScreen: View {
    @Environment(\.dismiss) private var dismiss
    var body: some View {
        NavigationStack {
            Text("New post").toolbar { Button("Close") { dismiss() } }
        }
    }
}
